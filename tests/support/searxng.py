"""A loopback server shaped like SearXNG's JSON API, for the real web.search."""

from __future__ import annotations

import json
import threading
from urllib.parse import parse_qs, urlsplit

from tests.support.loopback import LoopbackServer, QuietHandler

#: What every search answers with (the bench's cheap peer answers the same).
RESULTS = [
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
]


class SearXNGShaped(LoopbackServer):
    """Answers ``GET /search?format=json`` the way SearXNG does."""

    def __init__(self) -> None:
        self.queries: list[str] = []
        #: When set, each search is counted and then held until this is set (a search
        #: at the provider while its caller is killed).
        self.hold: threading.Event | None = None
        owner = self

        class Handler(QuietHandler):
            def do_GET(self) -> None:
                parts = urlsplit(self.path)
                query = parse_qs(parts.query)
                owner.queries.append(query.get("q", [""])[0])
                if owner.hold is not None:
                    owner.hold.wait(30)
                body = json.dumps(
                    {
                        "query": query.get("q", [""])[0],
                        "results": RESULTS,
                        "unresponsive_engines": [],
                    }
                ).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        super().__init__(Handler)

    @property
    def base_url(self) -> str:
        return self.url
