"""How uvicorn serves the app: its public settings, and nothing of its internals.

The HTTP/1.1 parser is h11 (``http="h11"``), which refuses on its own what the service must
not read: a request head that grows past :data:`MAX_HEAD_BYTES` unfinished, an HTTP/1.1
request without ``Host``, a bad ``Content-Length`` or chunk; and parses a connection's next
request only once the answer to the one before has gone. uvicorn answers such a request
itself, below the app, with its plain-text ``400 Invalid HTTP request received.`` and closes
the connection: a fixed text, without the app's security headers, which guard what the app
shows. Every request that parses is the app's, whose
:class:`~spyglass.service.middleware.SecurityHeaders` put the headers on every answer.

The event loop is uvloop's (libuv's loop, compiled) where it is installed, as it is by default
on Linux and macOS; asyncio's own loop otherwise (:func:`event_loop`). Everything the service
runs on it uses only asyncio's public interfaces (transports and protocols, futures, worker
threads), which both loops implement.

An idle connection is kept open for :data:`KEEP_ALIVE_SECONDS`, longer than any common client
or proxy keeps one idle (httpx 5 s, Caddy's reverse proxy 2 min): the client always closes
first. When the server closes first, a client that sends its next request at that moment meets
a closed connection, and a POST is not retried on its own (with both at 5 s, 0.11 % of a
default httpx client's POSTs did).

There is no WebSocket protocol (``ws="none"``): Spyglass serves no WebSocket, and an upgrade
request is an ordinary request the app answers.
"""

from __future__ import annotations

from typing import Any

import uvicorn

#: Past this many bytes a request head that has not ended is refused, not buffered on.
MAX_HEAD_BYTES = 16 * 1024

#: How long an idle connection is kept open: above httpx's 5 s and Caddy's 2 min.
KEEP_ALIVE_SECONDS = 130


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
        "http": "h11",
        "h11_max_incomplete_event_size": MAX_HEAD_BYTES,
        "loop": event_loop(),
        "ws": "none",
        "timeout_keep_alive": KEEP_ALIVE_SECONDS,
        "server_header": False,
        "log_level": "warning",
        "lifespan": "on",
    }
    settings.update(options)
    return uvicorn.Config(app, **settings)
