"""A loopback server shaped like SearXNG's JSON API, for the real web.search."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.support.quiet import QuietServer


class SearXNGShaped:
    """Answers ``GET /search?format=json`` the way SearXNG does."""

    def __init__(self) -> None:
        self.queries: list[str] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            # Small SSE chunks must not wait for delayed ACKs (Nagle): the model is "instant".
            disable_nagle_algorithm = True

            def log_message(self, format: str, *args: Any) -> None:
                return

            def do_GET(self) -> None:
                parts = urlsplit(self.path)
                query = parse_qs(parts.query)
                owner.queries.append(query.get("q", [""])[0])
                body = json.dumps(
                    {
                        "query": query.get("q", [""])[0],
                        "results": [
                            {
                                "title": "Otter - Wikipedia",
                                "url": "https://en.wikipedia.org/wiki/Otter",
                                "content": "Otters are carnivorous mammals.",
                            },
                            {
                                "title": "Sea otter",
                                "url": "https://example.org/sea-otter",
                                "content": "The sea otter is a marine mammal.",
                            },
                        ],
                        "unresponsive_engines": [],
                    }
                ).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = QuietServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> SearXNGShaped:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)
