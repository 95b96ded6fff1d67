"""A threaded HTTP server for test peers that does not print clients hanging up."""

from __future__ import annotations

from http.server import ThreadingHTTPServer
from typing import Any


class QuietServer(ThreadingHTTPServer):
    daemon_threads = True
    # The default listen backlog of 5 drops connections when 50 conversations arrive at once.
    request_queue_size = 128

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client closing its keep-alive connection (a connection reset) is normal here;
        # real failures show up in the tests' own assertions.
        return
