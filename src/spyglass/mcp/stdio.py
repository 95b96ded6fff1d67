"""Reading MCP messages from stdin so that every request gets an answer.

The SDK's stdio transport decodes stdin leniently (a byte that is not UTF-8 becomes U+FFFD, so
the owner would be asked to approve text the client never sent) and drops a line that is not
a JSON-RPC message without a word (the client waits for an answer that never comes). Lines
are therefore checked here before the SDK sees them: a line that is not UTF-8 or not JSON is
answered with a JSON-RPC parse error, a JSON value that is not a message with an invalid
request error — to the request's ``id`` whenever one can be read from it, as a host matches
answers by id.

The end of stdin is passed on only once every request read before it has been answered. The
SDK's dispatcher takes the end of its input for the client's departure and cancels every
request still running, so a host that writes its requests and closes stdin at once
(``printf ... | spyglass mcp``) got its ``initialize`` answered and nothing after it
(docs/decisions.md, "The end of stdin waits for the answers").
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from typing import Any, BinaryIO, cast

import anyio
import anyio.to_thread
import mcp.types as types
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

from spyglass import jsontext

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
    checked = _checked(raw)
    return checked[0] if isinstance(checked, tuple) else checked


def _checked(raw: bytes) -> tuple[str, types.JSONRPCMessage] | types.JSONRPCError | None:
    """:func:`check_line`, with the message as the SDK will read it."""
    if not raw.strip():
        return None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        # The id is still worth finding: read it from a lossy decoding that is never used
        # for anything else.
        lossy: Any
        try:
            lossy = jsontext.loads(raw.decode("utf-8", errors="replace"))
        except ValueError:
            lossy = None
        return _error(
            _request_id(lossy),
            PARSE_ERROR,
            f"the message is not valid UTF-8 (byte 0x{raw[exc.start]:02x} at offset "
            f"{exc.start}); MCP over stdio is UTF-8 JSON, one message per line",
        )
    try:
        data = jsontext.loads(text)
    except json.JSONDecodeError as exc:
        return _error(None, PARSE_ERROR, f"the message is not valid JSON ({exc.msg})")
    try:
        # Read as the SDK's transport reads the line (its own adapter, from the JSON text), so
        # what is passed on is exactly what the SDK will take for a request to answer.
        message = types.jsonrpc_message_adapter.validate_json(text, by_name=False)
    except ValidationError:
        return _error(
            _request_id(data),
            INVALID_REQUEST,
            "the message is not a JSON-RPC 2.0 request, notification or response",
        )
    return text, message


def _error(request_id: str | int | None, code: int, message: str) -> types.JSONRPCError:
    return types.JSONRPCError(
        jsonrpc="2.0", id=request_id, error=types.ErrorData(code=code, message=message)
    )


class Unanswered:
    """The client's requests passed to the server and not answered yet, and the server's own
    requests to the client not answered yet.

    :meth:`settled` returns once the first are all answered, or as soon as the server waits
    on the client (an approval asked by elicitation): after the end of stdin nobody can answer
    that, and only the SDK seeing the end of its input fails the wait (``CONNECTION_CLOSED``).
    A request the client cancels is never answered, and is not waited for.
    """

    def __init__(self) -> None:
        self._requests: Counter[int | str] = Counter()
        self._asks: set[int | str] = set()
        self._changed = anyio.Event()

    def client_sent(self, message: types.JSONRPCMessage) -> None:
        """Note a message read from the client that is passed to the server."""
        if isinstance(message, types.JSONRPCRequest):
            self._requests[message.id] += 1
        elif isinstance(message, types.JSONRPCNotification):
            if message.method == "notifications/cancelled" and isinstance(message.params, dict):
                request_id = message.params.get("requestId")
                if isinstance(request_id, int | str):
                    self._answered(request_id)
        elif message.id is not None:  # the client's answer to the server's request
            self._asks.discard(message.id)
        self._notify()

    def server_sent(self, message: types.JSONRPCMessage) -> None:
        """Note a message the server wrote to the client."""
        if isinstance(message, types.JSONRPCRequest):
            self._asks.add(message.id)
        elif (
            isinstance(message, types.JSONRPCResponse | types.JSONRPCError)
            and message.id is not None
        ):
            self._answered(message.id)
        self._notify()

    def _answered(self, request_id: int | str) -> None:
        if self._requests[request_id] > 1:
            self._requests[request_id] -= 1
        else:
            self._requests.pop(request_id, None)

    def _notify(self) -> None:
        self._changed.set()
        self._changed = anyio.Event()

    async def settled(self) -> None:
        """Return once no request waits for its answer, or the server waits on the client."""
        while self._requests and not self._asks:
            await self._changed.wait()


class WatchedWrites:
    """The transport's write stream, telling :class:`Unanswered` what the server sent."""

    def __init__(self, stream: Any, unanswered: Unanswered) -> None:
        self._stream = stream
        self._unanswered = unanswered

    async def send(self, item: SessionMessage) -> None:
        await self._stream.send(item)
        self._unanswered.server_sent(item.message)

    def close(self) -> None:
        self._stream.close()

    async def aclose(self) -> None:
        await self._stream.aclose()

    async def __aenter__(self) -> WatchedWrites:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()


class CheckedLines:
    """stdin as the SDK's transport reads it, with bad lines answered instead of passed on,
    and its end held back until every request passed on has its answer.

    The answers go out through the transport's own write stream (so they never interleave
    with its frames); lines read before that stream is known wait for it.
    """

    def __init__(self, source: BinaryIO) -> None:
        self._source = source
        self._replies: Any = None
        self._ready = anyio.Event()
        self._unanswered = Unanswered()

    def answer_through(self, write_stream: Any) -> WatchedWrites:
        """Answer bad lines through ``write_stream``; the server writes through the result."""
        self._replies = write_stream
        self._ready.set()
        return WatchedWrites(write_stream, self._unanswered)

    def __aiter__(self) -> CheckedLines:
        return self

    async def __anext__(self) -> str:
        while True:
            # Abandoned on cancel: a line may never come (Ctrl-C with the host still there),
            # and stopping must not wait for one (the CLI then exits past the blocked read).
            raw = await anyio.to_thread.run_sync(self._source.readline, abandon_on_cancel=True)
            if not raw:
                await self._unanswered.settled()
                raise StopAsyncIteration
            checked = _checked(raw)
            if isinstance(checked, tuple):
                text, message = checked
                self._unanswered.client_sent(message)
                return text
            if checked is not None:
                await self._ready.wait()
                await self._replies.send(SessionMessage(cast(Any, checked)))


def stdio_transport() -> tuple[CheckedLines, Any]:
    """stdin checked line by line, and the SDK's stdio transport reading from it."""
    lines = CheckedLines(sys.stdin.buffer)
    return lines, stdio_server(stdin=cast(Any, lines))
