"""Recognising a server's "this model cannot take tools", and remembering it for a while."""

from __future__ import annotations

import pytest

from spyglass.llm.toolsupport import ToolSupportMemory, error_message, refuses_tools
from tests.support.fake_model import TOOL_REFUSALS


@pytest.mark.parametrize("dialect", sorted(TOOL_REFUSALS))
def test_each_server_s_own_refusal_of_tools_is_recognised(dialect: str) -> None:
    status, body = TOOL_REFUSALS[dialect]
    assert refuses_tools(status, body)


@pytest.mark.parametrize(
    ("status", "body"),
    [
        (400, b'{"error":{"message":"the request exceeds the available context size"}}'),
        (
            400,
            b'{"error":{"message":"invalid tool call arguments","type":"invalid_request_error"}}',
        ),
        (404, b'{"error":{"message":"model \\"qwen3\\" not found, try pulling it first"}}'),
        (500, b'{"error":{"message":"llama runner process has terminated"}}'),
        (503, b'{"error":{"message":"gemma3 does not support tools"}}'),  # wrong status
        (400, b"<html>Bad Request</html>"),
        (400, b""),
    ],
)
def test_other_errors_are_not_taken_for_a_refusal_of_tools(status: int, body: bytes) -> None:
    assert not refuses_tools(status, body)


def test_ollama_s_native_api_shape_and_plain_text_are_read_too() -> None:
    assert refuses_tools(400, b'{"error":"qwen2:0.5b does not support tools"}')
    assert refuses_tools(400, b"tools are not supported for this model")
    assert error_message(b'{"detail": "nope"}') == "nope"


def test_a_refusal_is_remembered_per_model_until_its_time_is_up() -> None:
    now = [100.0]
    memory = ToolSupportMemory(60, clock=lambda: now[0])
    memory.remember("gemma3:270m")
    assert memory.refused("gemma3:270m") and not memory.refused("qwen3:8b")
    now[0] += 59
    assert memory.refused("gemma3:270m")
    now[0] += 2
    assert not memory.refused("gemma3:270m")


def test_an_error_body_nested_deeper_than_python_reads_is_shown_as_its_text() -> None:
    body = b"[" * 5_000 + b"]" * 5_000
    assert error_message(body).startswith("[[[")
