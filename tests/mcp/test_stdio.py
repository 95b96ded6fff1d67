"""Every stdin line gets an answer: bad bytes and bad JSON are refused, not dropped."""

from __future__ import annotations

import json
import signal
import subprocess
from pathlib import Path
from typing import Any

import anyio
import mcp.types as types
import pytest

from spyglass.core.policy import WEB_ACCESS, PolicyFile
from spyglass.mcp.stdio import INVALID_REQUEST, PARSE_ERROR, Unanswered, check_line
from spyglass.paths import Paths
from tests.mcp.processes import DEADLINE_SECONDS, INITIALIZE, SPYGLASS, environment, raw_stdio

LATIN1_CALL = (
    b'{"jsonrpc":"2.0","id":7,"method":"tools/call",'
    b'"params":{"name":"web_search","arguments":{"query":"caf\xe9"}}}\n'
)


def test_a_valid_message_passes_through_as_text() -> None:
    line = json.dumps({"jsonrpc": "2.0", "id": 3, "method": "tools/list"}).encode() + b"\n"
    assert check_line(line) == line.decode()


def test_a_line_that_is_not_utf8_is_a_parse_error_to_the_request_it_was() -> None:
    answer = check_line(LATIN1_CALL)
    assert isinstance(answer, types.JSONRPCError)
    assert (answer.id, answer.error.code) == (7, PARSE_ERROR)
    assert "not valid UTF-8 (byte 0xe9" in answer.error.message


@pytest.mark.parametrize(
    ("line", "request_id", "code"),
    [
        (b"{not json\n", None, PARSE_ERROR),
        (b'{"jsonrpc": "2.0", "id": 4, "method": 12}\n', 4, INVALID_REQUEST),
        (b"[1, 2]\n", None, INVALID_REQUEST),
    ],
)
def test_a_line_that_is_not_a_message_is_answered_with_the_matching_error(
    line: bytes, request_id: int | None, code: int
) -> None:
    answer = check_line(line)
    assert isinstance(answer, types.JSONRPCError)
    assert (answer.id, answer.error.code) == (request_id, code)


def test_a_blank_line_is_nobodys_request() -> None:
    assert check_line(b"  \n") is None


def test_over_real_stdio_a_query_that_is_not_utf8_is_answered_and_the_session_goes_on(
    home: Path,
) -> None:
    PolicyFile(Paths(home).policy_file).set(WEB_ACCESS, True)
    with raw_stdio(environment(home)) as server:
        server.send(INITIALIZE)
        assert server.response(1)["result"]["serverInfo"]["name"] == "spyglass"
        server.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        assert server.process.stdin is not None
        server.process.stdin.flush()
        server.process.stdin.buffer.write(LATIN1_CALL)
        server.process.stdin.buffer.write(b"{not json\n")
        server.process.stdin.buffer.flush()
        refused = server.response(7)
        assert refused["error"]["code"] == PARSE_ERROR
        assert "UTF-8" in refused["error"]["message"]
        unparsable = server.response(None)
        assert unparsable["error"]["code"] == PARSE_ERROR
        # The same query in proper UTF-8 is served as usual afterwards.
        server.send(
            {
                "jsonrpc": "2.0",
                "id": 8,
                "method": "tools/call",
                "params": {"name": "web_search", "arguments": {"query": "café"}},
            }
        )
        answer = server.response(8)["result"]
        assert answer["isError"] is True
        assert "CONFIRMATION_REQUIRED" in answer["content"][0]["text"]


DEEP = b"[" * 100_000 + b"]" * 100_000


def test_a_line_nested_deeper_than_python_reads_is_a_parse_error() -> None:
    for line in (DEEP + b"\n", b'{"jsonrpc": "2.0", "id": 2, "params": ' + DEEP + b"}\n"):
        answer = check_line(line)
        assert isinstance(answer, types.JSONRPCError)
        assert answer.error.code == PARSE_ERROR
        assert "deeper than can be read" in answer.error.message


def test_over_real_stdio_a_message_nested_too_deeply_is_answered_and_the_session_goes_on(
    home: Path,
) -> None:
    # The reader raised out of the SDK's task group and ended the server.
    with raw_stdio(environment(home)) as server:
        server.send(INITIALIZE)
        server.response(1)
        server.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        assert server.process.stdin is not None
        server.process.stdin.flush()
        server.process.stdin.buffer.write(DEEP + b"\n")
        server.process.stdin.buffer.flush()
        assert server.response(None)["error"]["code"] == PARSE_ERROR
        server.send({"jsonrpc": "2.0", "id": 3, "method": "tools/list"})
        assert "tools" in server.response(3)["result"]


def _message(data: dict[str, Any]) -> types.JSONRPCMessage:
    return types.jsonrpc_message_adapter.validate_python(data, by_name=False)


async def _settles(unanswered: Unanswered) -> bool:
    with anyio.move_on_after(0.5):
        await unanswered.settled()
        return True
    return False


async def test_the_end_of_input_waits_for_each_request_passed_on_to_be_answered() -> None:
    unanswered = Unanswered()
    unanswered.client_sent(_message({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}))
    unanswered.client_sent(_message({"jsonrpc": "2.0", "id": "b", "method": "ping"}))
    unanswered.server_sent(_message({"jsonrpc": "2.0", "id": 2, "result": {"tools": []}}))
    assert not await _settles(unanswered)
    unanswered.server_sent(
        _message({"jsonrpc": "2.0", "id": "b", "error": {"code": -1, "message": "no"}})
    )
    assert await _settles(unanswered)


async def test_the_end_of_input_waits_for_no_request_the_client_cancelled() -> None:
    unanswered = Unanswered()
    unanswered.client_sent(_message({"jsonrpc": "2.0", "id": 5, "method": "tools/call"}))
    unanswered.client_sent(
        _message(
            {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 5}}
        )
    )
    assert await _settles(unanswered)


async def test_the_end_of_input_goes_on_once_the_server_waits_on_the_client() -> None:
    unanswered = Unanswered()
    unanswered.client_sent(_message({"jsonrpc": "2.0", "id": 3, "method": "tools/call"}))
    unanswered.server_sent(
        _message({"jsonrpc": "2.0", "id": 1, "method": "elicitation/create", "params": {}})
    )
    # Nobody can answer the elicitation once stdin has ended: only the SDK seeing the end of
    # its input ends that wait.
    assert await _settles(unanswered)


def _answers_to_written_then_closed(
    home: Path, lines: list[dict[str, Any]]
) -> dict[int, dict[str, Any]]:
    """What ``spyglass mcp`` answers, by id, to ``lines`` written at once before stdin closes;
    the process must then exit by itself, cleanly."""
    finished = subprocess.run(
        [SPYGLASS, "mcp"],
        input="".join(json.dumps(line) + "\n" for line in lines),
        env=environment(home),
        capture_output=True,
        text=True,
        timeout=DEADLINE_SECONDS,
        check=False,
    )
    assert finished.returncode == 0, finished.stderr
    return {message["id"]: message for message in map(json.loads, finished.stdout.splitlines())}


@pytest.mark.parametrize("web_access", [False, True])
def test_over_real_stdio_every_request_written_before_stdin_closes_is_answered(
    home: Path, web_access: bool
) -> None:
    # A host that writes the handshake, tools/list and a call, then closes stdin at once.
    PolicyFile(Paths(home).policy_file).set(WEB_ACCESS, web_access)
    lines: list[dict[str, Any]] = [
        INITIALIZE,
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "tools/call",
            "params": {"name": "web_fetch", "arguments": {"url": "http://127.0.0.1/"}},
        },
    ]
    answers = _answers_to_written_then_closed(home, lines)
    assert sorted(answers) == [1, 2, 3]
    tools = [tool["name"] for tool in answers[2]["result"]["tools"]]
    assert ("web_fetch" in tools) is web_access
    refusal = answers[3]["result"]
    assert refusal["isError"] is True
    expected = "[FETCH_TARGET_REJECTED/" if web_access else "[POLICY_DISABLED]"
    assert expected in refusal["content"][0]["text"]


def test_over_real_stdio_a_2026_client_s_call_written_before_stdin_closes_is_answered(
    home: Path,
) -> None:
    # No handshake at 2026-07-28: each request carries its own envelope.
    envelope = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"},
    }
    lines = [
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": envelope}},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {
                "name": "web_fetch",
                "arguments": {"url": "http://127.0.0.1/"},
                "_meta": envelope,
            },
        },
    ]
    answers = _answers_to_written_then_closed(home, lines)
    assert sorted(answers) == [1, 2]
    assert "[POLICY_DISABLED]" in answers[2]["result"]["content"][0]["text"]


def _attempts(home: Path) -> dict[str, list[str]]:
    """Each audited attempt's outcomes, in order, by invocation id."""
    attempts: dict[str, list[str]] = {}
    for line in Paths(home).audit_file.read_text(encoding="ascii").splitlines():
        event = json.loads(line)
        attempts.setdefault(event["invocation_id"], []).append(event["outcome"])
    return attempts


def test_over_real_stdio_stdin_closing_while_the_owner_is_asked_ends_the_attempt_once(
    home: Path,
) -> None:
    PolicyFile(Paths(home).policy_file).set(WEB_ACCESS, True)
    initialize = json.loads(json.dumps(INITIALIZE))
    initialize["params"]["capabilities"] = {"elicitation": {"form": {}}}
    with raw_stdio(environment(home)) as server:
        server.send(initialize)
        server.response(1)
        server.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        server.send(
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/call",
                "params": {"name": "web_search", "arguments": {"query": "tide tables"}},
            }
        )
        while (line := server.stdout.next()) is not None and "elicitation/create" not in line:
            pass
        assert line is not None, "the owner was never asked"
        assert server.process.stdin is not None
        server.process.stdin.close()  # the host goes away before anyone answers
        assert server.process.wait(timeout=DEADLINE_SECONDS) == 0
    assert list(_attempts(home).values()) == [["pending_confirmation", "denied"]]


def test_over_real_stdio_stdin_closing_with_a_2026_question_out_ends_the_attempt_once(
    home: Path,
) -> None:
    PolicyFile(Paths(home).policy_file).set(WEB_ACCESS, True)
    envelope = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"},
    }
    call = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "web_search", "arguments": {"query": "tide"}, "_meta": envelope},
    }
    answers = _answers_to_written_then_closed(home, [call])
    assert answers[1]["result"].get("resultType") == "input_required", answers[1]
    assert list(_attempts(home).values()) == [["pending_confirmation", "denied"]]


def test_over_real_stdio_ctrl_c_with_stdin_still_open_ends_the_open_approval_and_exits(
    home: Path,
) -> None:
    PolicyFile(Paths(home).policy_file).set(WEB_ACCESS, True)
    initialize = json.loads(json.dumps(INITIALIZE))
    initialize["params"]["capabilities"] = {"elicitation": {"form": {}}}
    call = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "web_search", "arguments": {"query": "tide tables"}},
    }
    with raw_stdio(environment(home)) as server:
        server.send(initialize)
        server.response(1)
        server.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        server.send(call)
        while (line := server.stdout.next()) is not None and "elicitation/create" not in line:
            pass
        # stdin stays open: the host has not gone away, the owner pressed Ctrl-C.
        server.process.send_signal(signal.SIGINT)
        assert server.process.wait(timeout=DEADLINE_SECONDS) == 0
    assert list(_attempts(home).values()) == [["pending_confirmation", "denied"]]
