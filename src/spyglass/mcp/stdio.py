"""Reading MCP messages from stdin so that every request gets an answer.

The SDK's stdio transport decodes stdin leniently (a byte that is not UTF-8 becomes U+FFFD, so
the owner would be asked to approve text the client never sent) and drops a line that is not
a JSON-RPC message without a word (the client waits for an answer that never comes). Lines
are therefore checked here before the SDK sees them: a line that is not UTF-8 or not JSON is
answered with a JSON-RPC parse error, a JSON value that is not a message with an invalid
request error — to the request's ``id`` whenever one can be read from it, as a host matches
answers by id.
"""

from __future__ import annotations

import json
import sys
from typing import Any, cast

import anyio
import mcp.types as types
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

#: JSON-RPC 2.0's codes for a message that cannot be parsed, and one that is not a request.
PARSE_ERROR = -32700
INVALID_REQUEST = -32600


def _request_id(data: Any) -> str | int | None:
    """The ``id`` of a would-be request, when it has a usable one."""
    if isinstance(data, dict):
        value = data.get("id")
        if isinstance(value, str | int) and not isinstance(value, bool):
            return value
    return None


def check_line(raw: bytes) -> str | types.JSONRPCError | None:
    """The line as text when it is a JSON-RPC message, else the error that answers it.

    ``None`` for a blank line, which is nobody's request.
    """
    if not raw.strip():
        return None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        # The id is still worth finding: read it from a lossy decoding that is never used
        # for anything else.
        lossy: Any
        try:
            lossy = json.loads(raw.decode("utf-8", errors="replace"))
        except ValueError:
            lossy = None
        return _error(
            _request_id(lossy),
            PARSE_ERROR,
            f"the message is not valid UTF-8 (byte 0x{raw[exc.start]:02x} at offset "
            f"{exc.start}); MCP over stdio is UTF-8 JSON, one message per line",
        )
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return _error(None, PARSE_ERROR, f"the message is not valid JSON ({exc.msg})")
    try:
        types.jsonrpc_message_adapter.validate_python(data, by_name=False)
    except ValidationError:
        return _error(
            _request_id(data),
            INVALID_REQUEST,
            "the message is not a JSON-RPC 2.0 request, notification or response",
        )
    return text


def _error(request_id: str | int | None, code: int, message: str) -> types.JSONRPCError:
    return types.JSONRPCError(
        jsonrpc="2.0", id=request_id, error=types.ErrorData(code=code, message=message)
    )


class CheckedLines:
    """stdin as the SDK's transport reads it, with bad lines answered instead of passed on.

    The answers go out through the transport's own write stream (so they never interleave
    with its frames); lines read before that stream is known wait for it.
    """

    def __init__(self, source: anyio.AsyncFile[bytes]) -> None:
        self._source = source
        self._replies: Any = None
        self._ready = anyio.Event()

    def answer_through(self, write_stream: Any) -> None:
        self._replies = write_stream
        self._ready.set()

    def __aiter__(self) -> CheckedLines:
        return self

    async def __anext__(self) -> str:
        while True:
            raw = await self._source.readline()
            if not raw:
                raise StopAsyncIteration
            checked = check_line(raw)
            if isinstance(checked, str):
                return checked
            if checked is not None:
                await self._ready.wait()
                await self._replies.send(SessionMessage(cast(Any, checked)))


def stdio_transport() -> tuple[CheckedLines, Any]:
    """stdin checked line by line, and the SDK's stdio transport reading from it."""
    lines = CheckedLines(anyio.wrap_file(sys.stdin.buffer))
    return lines, stdio_server(stdin=cast(Any, lines))
