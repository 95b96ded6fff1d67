"""A loopback HTTP server for the fetch benchmarks, run as its own process (so its work does
not share the client's GIL); prints the port on its first line.

``/page`` is a 100 KB text page; ``/gigabyte`` streams 1 GB of HTML paragraphs; ``/cap/<case>``
is a page of ``bench.crafted_pages.CAP_CASES`` (spaces as ``-``) at the default page cap.
``--bind ADDRESS PORT`` serves there instead of loopback.
"""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.support.loopback import LOOPBACK, QuietHandler, QuietServer  # noqa: E402

from bench.crafted_pages import CAP_CASES  # noqa: E402

PAGE = ("Benchmark line of text for the transport measurement.\n" * 1900).encode()[:100_000]
CHUNK = b"<p>" + (b"Words of an endless page. " * 2600)[: 64 * 1024 - 8] + b"</p>\n"
CAP = 5_000_000
GIGABYTE = 1_000_000_000


class Handler(QuietHandler):
    protocol_version = "HTTP/1.1"
    # The figures in docs/benchmarks.md were measured with the kernel's default (Nagle on).
    disable_nagle_algorithm = False

    def do_GET(self) -> None:
        case = self.path.removeprefix("/cap/").replace("-", " ")
        if self.path == "/page":
            self._head("text/plain", len(PAGE))
            self.wfile.write(PAGE)
        elif self.path.startswith("/cap/") and case in CAP_CASES:
            body = CAP_CASES[case](CAP)[:CAP].encode()
            self._head("text/html", len(body))
            self.wfile.write(body)
        elif self.path == "/gigabyte":
            self._head("text/html", GIGABYTE)
            sent = 0
            try:
                while sent < GIGABYTE:
                    piece = CHUNK[: GIGABYTE - sent]
                    self.wfile.write(piece)
                    sent += len(piece)
            except (BrokenPipeError, ConnectionResetError):
                pass
        else:
            self.send_error(404)

    def _head(self, kind: str, length: int) -> None:
        self.send_response(200)
        self.send_header("Content-Type", f"{kind}; charset=utf-8")
        self.send_header("Content-Length", str(length))
        self.end_headers()


def main() -> None:
    bind = (sys.argv[2], int(sys.argv[3])) if sys.argv[1:2] == ["--bind"] else LOOPBACK
    server = QuietServer(bind, Handler)
    print(server.server_address[1], flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        server.serve_forever()


if __name__ == "__main__":
    main()
