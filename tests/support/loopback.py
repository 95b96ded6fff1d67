"""The one way test peers run a real HTTP server on loopback.

    class Handler(QuietHandler):
        def do_GET(self) -> None: ...

    with LoopbackServer(Handler) as server:   # 127.0.0.1, an ephemeral port
        httpx.get(server.url + "/")

Peers with state subclass :class:`LoopbackServer` and pass it a handler class that closes
over them; peers that need their own server class (IPv6, TLS, connection counting) pass
``server=``.
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

LOOPBACK = ("127.0.0.1", 0)


class QuietServer(ThreadingHTTPServer):
    """A threaded HTTP server that does not print clients hanging up."""

    daemon_threads = True
    # The default listen backlog of 5 drops connections when 50 conversations arrive at once.
    request_queue_size = 128

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client closing its keep-alive connection (a connection reset) is normal here;
        # real failures show up in the tests' own assertions.
        return


class QuietHandler(BaseHTTPRequestHandler):
    """A request handler that logs nothing and sends small writes at once."""

    # Small writes (SSE chunks, short bodies) must not wait for delayed ACKs (Nagle):
    # the peers stand in for servers that answer instantly.
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: Any) -> None:
        return


class LoopbackServer:
    """An HTTP server served on a daemon thread between :meth:`start` and :meth:`stop`
    (or ``with``). Built from ``handler`` on 127.0.0.1 and a free port unless ``server``
    is given."""

    def __init__(
        self,
        handler: type[BaseHTTPRequestHandler] | None = None,
        *,
        server: ThreadingHTTPServer | None = None,
        poll_interval: float = 0.05,
    ) -> None:
        if server is None:
            if handler is None:
                raise TypeError("LoopbackServer needs a handler class or a server")
            server = QuietServer(LOOPBACK, handler)
        self.server = server
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": poll_interval}, daemon=True
        )

    @property
    def address(self) -> tuple[str, int]:
        host, port = self.server.server_address[:2]
        return str(host), int(port)

    @property
    def url(self) -> str:
        """``http://host:port``, without a trailing slash."""
        host, port = self.address
        return f"http://{host}:{port}"

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self._thread.join(timeout=10)

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
