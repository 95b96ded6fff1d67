"""How uvicorn serves the app, so that what uvicorn answers itself carries the headers too.

The app's :class:`~spyglass.service.middleware.SecurityHeaders` puts the security headers on
every response the app gives. uvicorn also answers on its own, below the app, when a request
is not valid HTTP/1.1 at all (a broken request line, a bad header, a bad ``Content-Length``
or chunk): its protocol then writes a bare ``400 Invalid HTTP request received.`` with no
headers but its own. So the service runs uvicorn's httptools protocol (a compiled HTTP/1.1
parser: a request costs the service noticeably less than with the pure-Python h11) with that
one answer replaced by the JSON error every other layer gives, headers included; and with
the two checks h11 made and httptools does not: a request head may not grow past
:data:`MAX_HEAD_BYTES` unfinished, and an HTTP/1.1 request must name its ``Host``.

The event loop is uvloop's (libuv's loop, compiled) where it is installed, as it is by default
on Linux and macOS; asyncio's own loop otherwise (:func:`event_loop`). Everything the service
runs on it uses only asyncio's public interfaces (transports and protocols, futures, worker
threads), which both loops implement.

There is no WebSocket protocol, because Spyglass serves no WebSocket and a handshake uvicorn
refused on its own would again be its bare answer: an upgrade request is an ordinary request
the app answers, on a connection closed afterwards.
"""

from __future__ import annotations

import json
from typing import Any

import httptools
import uvicorn
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from spyglass.service.middleware import SECURITY_HEADERS

MALFORMED_CODE = "MALFORMED_REQUEST"
MALFORMED_MESSAGE = (
    "the request is not valid HTTP/1.1 (its request line, a header, its length or its "
    "chunks); send a well-formed request"
)
#: Past this many bytes a request head that has not ended is refused, not buffered on (the
#: limit h11 applied before).
MAX_HEAD_BYTES = 16 * 1024


def _malformed_answer() -> bytes:
    body = json.dumps({"error": {"code": MALFORMED_CODE, "message": MALFORMED_MESSAGE}}).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"connection", b"close"),
        *SECURITY_HEADERS,
    ]
    head = b"".join(name + b": " + value + b"\r\n" for name, value in headers)
    return b"HTTP/1.1 400 Bad Request\r\n" + head + b"\r\n" + body


#: The whole answer to a malformed request, built once.
MALFORMED_ANSWER = _malformed_answer()


class Protocol(HttpToolsProtocol):
    """uvicorn's httptools protocol whose own error answer is the service's JSON error,
    headers on, and which refuses what h11 refused and httptools lets through."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._head_open = False
        self._head_bytes = 0
        #: A malformed request arrived behind one still being answered.
        self._refused = False

    def data_received(self, data: bytes) -> None:
        if self._refused:
            return  # the parser stopped at the malformed request; the answer is on its way
        super().data_received(data)
        if self._head_open and not self.transport.is_closing():
            # Everything fed since the head began is head: it has not ended yet.
            self._head_bytes += len(data)
            if self._head_bytes > MAX_HEAD_BYTES:
                self.send_400_response("request head too large")

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._head_open = True
        self._head_bytes = 0

    def on_headers_complete(self) -> None:
        self._head_open = False
        if self.parser.get_http_version() == "1.1" and not any(
            name == b"host" for name, _ in self.headers
        ):
            # Raised from a parser callback, it stops the parser like any parse error.
            raise httptools.HttpParserError("an HTTP/1.1 request without a Host header")
        super().on_headers_complete()
        if self.parser.should_upgrade():
            # Nothing here switches protocols: answer it as a plain request, then close,
            # since the parser reads nothing more on a connection that asked to upgrade.
            self.cycle.keep_alive = False

    def _unsupported_upgrade_warning(self) -> None:
        # uvicorn would log that no WebSocket library is installed; none is meant to be.
        return

    def send_400_response(self, msg: str) -> None:
        # Called by uvicorn when httptools cannot parse what the client sent (and by the
        # checks above).
        cycle = self.cycle
        if cycle is not None and not cycle.response_complete:
            if not cycle.more_body:
                # A request the app is still answering was whole, so the bad bytes are a
                # later request, sent without waiting (httptools parses ahead, h11 did not):
                # the answers in hand go out first, in order, then this one.
                self._refused = True
                self.flow.pause_reading()
                return
            if cycle.response_started:
                # Half an answer is out: nothing else can be said on this connection.
                self.transport.close()
                return
            # The request's own body is broken: the app's answer must not follow ours.
            cycle.disconnected = True
            cycle.message_event.set()
        self._refuse()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if self._refused and self.cycle.response_complete and not self.transport.is_closing():
            self._unset_keepalive_if_required()
            self._refuse()

    def _refuse(self) -> None:
        self.transport.write(MALFORMED_ANSWER)
        self.transport.close()


def event_loop() -> str:
    """The event loop the service runs on: ``"uvloop"`` where it is installed, else
    ``"asyncio"``. (uvloop's own scheduling, selector and transports are compiled: a search
    turn costs the service about a tenth less CPU on it; docs/benchmarks.md, round five.)"""
    try:
        import uvloop  # noqa: F401
    except ImportError:
        return "asyncio"
    return "uvloop"


def config(app: Any, **options: Any) -> uvicorn.Config:
    """uvicorn's configuration for the service: ``app`` is the ASGI app or a factory's path;
    ``options`` override any of uvicorn's (``loop="asyncio"`` runs on asyncio's own loop)."""
    settings: dict[str, Any] = {
        "http": Protocol,
        "loop": event_loop(),
        "ws": "none",
        "server_header": False,
        "log_level": "warning",
        "lifespan": "on",
    }
    settings.update(options)
    return uvicorn.Config(app, **settings)
