"""A loopback HTTP server for the fetch benchmarks, run as its own process.

    python bench/loopback_server.py   # prints the port on its first line

``/page`` is a 100 KB text page; ``/gigabyte`` streams 1 GB of HTML with a Content-Length.
It runs in its own process so the server's work does not share the client's GIL.
"""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.support.loopback import LOOPBACK, QuietHandler, QuietServer  # noqa: E402

PAGE = ("Benchmark line of text for the transport measurement.\n" * 1900).encode()[:100_000]
CHUNK = b"<p>" + b"x" * (64 * 1024 - 8) + b"</p>\n"
GIGABYTE = 1_000_000_000


class Handler(QuietHandler):
    protocol_version = "HTTP/1.1"
    # The figures in docs/benchmarks.md were measured with the kernel's default (Nagle on).
    disable_nagle_algorithm = False

    def do_GET(self) -> None:
        if self.path == "/page":
            self.send_response(200)
            self.send_header("Content-Type", "text/plain; charset=utf-8")
            self.send_header("Content-Length", str(len(PAGE)))
            self.end_headers()
            self.wfile.write(PAGE)
            return
        if self.path == "/gigabyte":
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(GIGABYTE))
            self.end_headers()
            sent = 0
            try:
                while sent < GIGABYTE:
                    piece = CHUNK[: GIGABYTE - sent]
                    self.wfile.write(piece)
                    sent += len(piece)
            except (BrokenPipeError, ConnectionResetError):
                pass
            return
        self.send_error(404)


def main() -> None:
    server = QuietServer(LOOPBACK, Handler)
    print(server.server_address[1], flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        server.serve_forever()


if __name__ == "__main__":
    main()
