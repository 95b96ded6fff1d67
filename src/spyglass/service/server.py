"""How uvicorn serves the app, so that what uvicorn answers itself carries the headers too.

The app's :class:`~spyglass.service.middleware.SecurityHeaders` puts the security headers on
every response the app gives. uvicorn also answers on its own, below the app, when a request
is not valid HTTP/1.1 at all (a broken request line, a bad header, headers too large, a bad
``Content-Length`` or chunk): its h11 protocol then writes a bare ``400 Invalid HTTP request
received.`` with no headers but its own, and ignores the server's ``headers=`` option on that
path. So the service runs uvicorn's h11 protocol with that one answer replaced by the JSON
error every other layer gives, headers included; and with no WebSocket protocol, because
Spyglass serves no WebSocket and a handshake uvicorn refused on its own would again be its
bare answer (an upgrade request is then an ordinary request the app answers).
"""

from __future__ import annotations

import json
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from spyglass.service.middleware import SECURITY_HEADERS

MALFORMED_CODE = "MALFORMED_REQUEST"
MALFORMED_MESSAGE = (
    "the request is not valid HTTP/1.1 (its request line, a header, its length or its "
    "chunks); send a well-formed request"
)


class Protocol(H11Protocol):
    """uvicorn's h11 protocol whose own error answer is the service's JSON error, headers on."""

    def send_400_response(self, msg: str) -> None:
        # Called by uvicorn when h11 cannot parse what the client sent. Once the app has begun
        # an answer nothing else can be said on this connection: just close it.
        if self.conn.our_state not in (h11.IDLE, h11.SEND_RESPONSE):
            self.transport.close()
            return
        body = json.dumps({"error": {"code": MALFORMED_CODE, "message": MALFORMED_MESSAGE}})
        payload = body.encode()
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(payload)).encode()),
            (b"connection", b"close"),
            *SECURITY_HEADERS,
        ]
        try:
            self.transport.write(self.conn.send(h11.Response(status_code=400, headers=headers)))
            self.transport.write(self.conn.send(h11.Data(data=payload)))
            self.transport.write(self.conn.send(h11.EndOfMessage()))
        except h11.LocalProtocolError:
            pass  # h11 will not let this connection answer any more; closing says enough
        self.transport.close()


def config(app: Any, **options: Any) -> uvicorn.Config:
    """uvicorn's configuration for the service: ``app`` is the ASGI app or a factory's path."""
    settings: dict[str, Any] = {
        "http": Protocol,
        "ws": "none",
        "server_header": False,
        "log_level": "warning",
        "lifespan": "on",
    }
    settings.update(options)
    return uvicorn.Config(app, **settings)
