"""Every stdin line gets an answer: bad bytes and bad JSON are refused, not dropped."""

from __future__ import annotations

import json
from pathlib import Path

import mcp.types as types
import pytest

from spyglass.core.policy import WEB_ACCESS, PolicyFile
from spyglass.mcp.stdio import INVALID_REQUEST, PARSE_ERROR, check_line
from spyglass.paths import Paths
from tests.mcp.processes import INITIALIZE, environment, raw_stdio

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
