"""Loopback web servers that stand in for public sites, and the fetch seams that reach them.

``web.fetch`` refuses loopback addresses, so tests cannot simply point it at 127.0.0.1.
Instead a :class:`StaticResolver` answers names with public-looking addresses and a
:class:`MappedDialler` connects those addresses to real loopback servers (:class:`Peer`).
Everything above the dialler, the guard, DNS checks, redirects and caps, runs for real.

Other suites (HTTP service, MCP) use :func:`serve_public` to let ``web.fetch`` read a page::

    with Peer({"/": page("<h1>Hi</h1>")}) as peer:
        serve_public(runtime.seams, {"example.com": peer})
        ...  # web.fetch http://example.com/ now reaches the loopback peer
"""

from __future__ import annotations

import contextlib
import gzip
import http.server
import itertools
import socket
import ssl
import threading
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence

import httpcore

from spyglass.core.context import Seams
from spyglass.net.addresses import IPAddress, parse_address
from spyglass.net.resolver import ResolutionError
from spyglass.net.seams import DIALLER, RESOLVER
from tests.support.loopback import LoopbackServer, QuietHandler

#: Addresses the guard treats as public (not documentation ranges, which it refuses).
PUBLIC_V4 = tuple(f"93.184.215.{n}" for n in range(10, 60))

Handler = http.server.BaseHTTPRequestHandler
Route = Callable[[Handler], None]


class StaticResolver:
    """Fixed answers per name. A value is a list of addresses (same answer every time) or
    a list of lists (successive answers, the last one repeated) to model DNS rebinding.
    ``lookups`` counts how often each name was asked."""

    def __init__(self, answers: Mapping[str, Sequence[str] | Sequence[Sequence[str]]]) -> None:
        self._answers: dict[str, list[list[IPAddress]]] = {}
        for name, value in answers.items():
            self.set(name, value)
        self.lookups: Counter[str] = Counter()

    def set(self, name: str, value: Sequence[str] | Sequence[Sequence[str]]) -> None:
        rounds: list[Sequence[str]] = (
            [value] if not value or isinstance(value[0], str) else list(value)  # type: ignore[list-item]
        )
        self._answers[name.lower()] = [[parse_address(a) for a in r] for r in rounds]

    async def resolve(self, host: str, port: int) -> list[IPAddress]:
        name = host.lower()
        count = self.lookups[name]
        self.lookups[name] += 1
        rounds = self._answers.get(name)
        if not rounds:
            raise ResolutionError("no such name")
        return list(rounds[min(count, len(rounds) - 1)])


class MappedDialler:
    """Connects given addresses to loopback ``(host, port)`` pairs; every other address
    fails to connect. ``dialled`` records each address asked for, in order."""

    def __init__(self, routes: Mapping[str, tuple[str, int]] | None = None) -> None:
        self.routes: dict[IPAddress, tuple[str, int]] = {
            parse_address(a): t for a, t in (routes or {}).items()
        }
        self.dialled: list[IPAddress] = []
        self._backend = httpcore.AnyIOBackend()

    async def connect(
        self, address: IPAddress, port: int, timeout: float | None
    ) -> httpcore.AsyncNetworkStream:
        self.dialled.append(address)
        target = self.routes.get(address)
        if target is None:
            raise httpcore.ConnectError("no route to this address in the test network")
        return await self._backend.connect_tcp(target[0], target[1], timeout=timeout)


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def __init__(self, peer: Peer, bind: tuple[str, int]) -> None:
        self.peer = peer
        if ":" in bind[0]:
            self.address_family = socket.AF_INET6
        super().__init__(bind, _RequestHandler)

    def verify_request(self, request: object, client_address: object) -> bool:
        with self.peer.lock:
            self.peer.connections += 1
        return True


class _RequestHandler(QuietHandler):
    server: _Server
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:
        peer = self.server.peer
        path = self.path.split("?", 1)[0]
        with peer.lock:
            peer.requests[path] += 1
            peer.targets.append(self.path)
            peer.headers.append(dict(self.headers.items()))
        route = peer.routes.get(path) or peer.routes.get("*")
        if route is None:
            respond(self, 404, b"not here", "text/plain")
            return
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            route(self)


class Peer(LoopbackServer):
    """A real HTTP server on 127.0.0.1 (ephemeral port) serving ``routes`` by path.

    ``requests`` counts requests per path, ``connections`` counts accepted connections
    (a canary peer asserts it stays 0), ``headers`` keeps each request's headers.
    """

    def __init__(
        self,
        routes: Mapping[str, Route] | None = None,
        *,
        tls: ssl.SSLContext | None = None,
        bind: tuple[str, int] = ("127.0.0.1", 0),
    ) -> None:
        self.routes: dict[str, Route] = dict(routes or {})
        self.requests: Counter[str] = Counter()
        self.headers: list[dict[str, str]] = []
        #: Every request target exactly as it arrived (path and query, in their spelling).
        self.targets: list[str] = []
        self.connections = 0
        #: TLS server names (SNI) clients sent, when serving TLS.
        self.server_names: list[str | None] = []
        self.lock = threading.Lock()
        server = _Server(self, bind)
        if tls is not None:
            tls.sni_callback = self._record_sni
            server.socket = tls.wrap_socket(server.socket, server_side=True)
        super().__init__(server=server, poll_interval=0.02)

    def _record_sni(self, _sock: ssl.SSLObject, name: str | None, _ctx: ssl.SSLContext) -> None:
        with self.lock:
            self.server_names.append(name)


def serve_public(
    seams: Seams, sites: Mapping[str, Peer], *, extra: Mapping[str, Sequence[str]] = {}
) -> tuple[StaticResolver, MappedDialler]:
    """Make each name in ``sites`` resolve to its own public-looking address that leads to
    the peer, and install the resolver and dialler into ``seams``."""
    answers: dict[str, Sequence[str]] = {}
    routes: dict[str, tuple[str, int]] = {}
    for name, address in zip(sites, PUBLIC_V4, strict=False):
        answers[name] = [address]
        routes[address] = sites[name].address
    answers.update(extra)
    resolver = StaticResolver(answers)
    dialler = MappedDialler(routes)
    seams.provide(RESOLVER, resolver)
    seams.provide(DIALLER, dialler)
    return resolver, dialler


# -- routes ---------------------------------------------------------------------------------


def respond(
    handler: Handler,
    status: int,
    body: bytes,
    content_type: str | None,
    headers: Mapping[str, str] | None = None,
) -> None:
    handler.send_response(status)
    if content_type is not None:
        handler.send_header("Content-Type", content_type)
    handler.send_header("Content-Length", str(len(body)))
    for key, value in (headers or {}).items():
        handler.send_header(key, value)
    handler.end_headers()
    handler.wfile.write(body)


def page(
    body: str | bytes,
    content_type: str | None = "text/html; charset=utf-8",
    *,
    status: int = 200,
    headers: Mapping[str, str] | None = None,
) -> Route:
    data = body.encode("utf-8") if isinstance(body, str) else body
    return lambda handler: respond(handler, status, data, content_type, headers)


def redirect(location: str, status: int = 302) -> Route:
    return lambda handler: respond(handler, status, b"", "text/plain", {"Location": location})


def endless(content_type: str = "text/html", chunk: int = 64 * 1024) -> Route:
    """Streams filler forever (until the client hangs up), without a Content-Length."""
    block = b"<p>" + b"x" * (chunk - 8) + b"</p>\n"

    def route(handler: Handler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", content_type)
        handler.send_header("Connection", "close")
        handler.end_headers()
        for _ in itertools.count():
            handler.wfile.write(block)

    return route


def gzip_bomb(decoded_bytes: int, content_type: str = "text/html") -> Route:
    """A small gzip body that inflates to ``decoded_bytes`` of zeros."""
    body = gzip.compress(b"\0" * decoded_bytes, compresslevel=9)
    return lambda handler: respond(handler, 200, body, content_type, {"Content-Encoding": "gzip"})


def drip(stop: threading.Event, every: float = 0.2, content_type: str = "text/html") -> Route:
    """Sends one byte every ``every`` seconds until ``stop`` is set or the client leaves.

    The pause is the server's pacing of a deliberately slow response, not a wait for a
    condition; the test that uses it asserts the client's deadline cut it off.
    """

    def route(handler: Handler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", content_type)
        handler.send_header("Connection", "close")
        handler.end_headers()
        while not stop.wait(every):
            handler.wfile.write(b"x")
            handler.wfile.flush()

    return route


def wait_until(condition: Callable[[], bool], timeout: float = 10.0) -> bool:
    """Poll ``condition`` until it holds or ``timeout`` passes; returns whether it held."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.01)
    return condition()
