"""A real loopback HTTP server that replays recorded provider responses and records requests.

Responses are built from each provider's documented shapes; tests set one per path and read
back exactly what Spyglass sent (method, path, query, headers, body).
"""

from __future__ import annotations

import gzip
import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from spyglass.search import client
from spyglass.search.model import ParsedPage, SearchQuery
from spyglass.search.provider import Endpoint
from spyglass.search.providers import PROVIDERS
from tests.support.loopback import LoopbackServer, QuietHandler

SECRET = "sk-test-SECRET-0123456789abcdef"


@dataclass
class Reply:
    """One canned response. ``stall`` holds the response until the server stops."""

    status: int = 200
    body: Any = b""
    headers: dict[str, str] = field(default_factory=dict)
    stall: bool = False
    gzip: bool = False

    def payload(self) -> bytes:
        if isinstance(self.body, bytes):
            data = self.body
        elif isinstance(self.body, str):
            data = self.body.encode()
        else:
            data = json.dumps(self.body).encode()
        return gzip.compress(data) if self.gzip else data


@dataclass
class Recorded:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)

    def form(self) -> dict[str, list[str]]:
        return parse_qs(self.body.decode(), keep_blank_values=True)


class ReplayServer(LoopbackServer):
    """Answers each path with the :class:`Reply` set for it and records every request."""

    def __init__(self) -> None:
        self.routes: dict[str, Reply] = {}
        self.requests: list[Recorded] = []
        self.released = threading.Event()
        replay = self

        class Handler(QuietHandler):
            protocol_version = "HTTP/1.1"

            def _serve(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                parts = urlsplit(self.path)
                replay.requests.append(
                    Recorded(
                        self.command,
                        parts.path,
                        parse_qs(parts.query, keep_blank_values=True),
                        {k.lower(): v for k, v in self.headers.items()},
                        body,
                    )
                )
                reply = replay.routes.get(parts.path, Reply(404, {"error": "no such route"}))
                if reply.stall:
                    replay.released.wait(30)
                    return
                data = reply.payload()
                self.send_response(reply.status)
                headers = {"Content-Type": "application/json", **reply.headers}
                if reply.gzip:
                    headers["Content-Encoding"] = "gzip"
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = _serve
            do_POST = _serve

        super().__init__(Handler)

    def set(self, path: str, reply: Reply) -> None:
        self.routes[path] = reply

    @property
    def last(self) -> Recorded:
        return self.requests[-1]

    def stop(self) -> None:
        # Stalled replies hold their handler until released; let them go before shutting down.
        self.released.set()
        super().stop()


def serving() -> ReplayServer:
    """A replay server to use as a context manager (``with serving() as server``)."""
    return ReplayServer()


@pytest.fixture
def replay() -> Iterator[ReplayServer]:
    """A replaying loopback server per test, standing in for a search provider."""
    with serving() as server:
        yield server


async def ask(
    name: str,
    server: ReplayServer,
    query: SearchQuery | None = None,
    *,
    key: str | None = SECRET,
    prefix: str = "",
    timeout: float = 5,
) -> ParsedPage:
    """Run provider ``name`` against ``server`` through the shared client."""
    endpoint = Endpoint(server.url + prefix, key)
    return await client.ask(
        PROVIDERS[name], endpoint, query or SearchQuery("hello world"), timeout=timeout
    )
