"""Every request a rendered page makes is answered here, by Spyglass's guarded client.

The browser never dials anything itself: :class:`GuardedExchange` is installed as the
route handler of the browser context (``context.route("**/*", ...)``), so each request the
page makes (the document, scripts, frames, ``fetch()``/XHR) is either refused or sent by the
same guarded stack as a static fetch: the :class:`~spyglass.net.guard.Guard` checks the
URL, the :class:`~spyglass.net.transport.GuardedBackend` resolves the name, refuses it if
any answer is not public, and dials the checked address. Redirects are followed here, each
hop checked again, because a redirect the browser followed by itself would not come back
through the route. Only ``GET`` and ``HEAD`` are sent: reading a page must not change
anything on a site. Images, media, fonts, stylesheets, beacons and event streams are never
loaded: they add no text, and each one would tell another host about the reader.
"""

from __future__ import annotations

import asyncio
import logging
import ssl
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import httpx

from spyglass.errors import CapabilityError, UpstreamError
from spyglass.fetch.render.limits import RenderLimits
from spyglass.net.body import ACCEPT_ENCODING, UnsupportedEncoding, decoded
from spyglass.net.dialler import Dialler
from spyglass.net.guard import Guard
from spyglass.net.redirects import MAX_HOPS, location, same_site
from spyglass.net.resolver import Resolver
from spyglass.net.transport import GuardedBackend, PinnedTransport

if TYPE_CHECKING:
    from playwright.async_api import Route, WebSocketRoute

logger = logging.getLogger(__name__)

#: Playwright's resource types that are never loaded (no text for the reader, and fewer
#: hosts told about them).
SKIPPED_TYPES = frozenset(
    {"image", "media", "font", "stylesheet", "texttrack", "manifest", "ping", "eventsource"}
)
#: Request headers of the page passed on; everything else is set by Spyglass.
FORWARDED_HEADERS = ("accept", "accept-language", "cookie", "x-requested-with")
#: Response headers never passed back: the body is already decoded and sized here.
DROPPED_HEADERS = frozenset(
    {"content-encoding", "content-length", "transfer-encoding", "connection", "keep-alive"}
)
REQUEST_TIMEOUT_SECONDS = 10.0


@dataclass
class Tally:
    """What the page asked for: requests sent, refused, bytes read and hosts contacted."""

    sent: int = 0
    refused: int = 0
    bytes: int = 0
    hosts: set[str] = field(default_factory=set)
    #: Why requests were refused, by kind (scheme, private_address, other_site, limit, ...).
    reasons: dict[str, int] = field(default_factory=dict)

    def refuse(self, reason: str) -> None:
        self.refused += 1
        self.reasons[reason] = self.reasons.get(reason, 0) + 1


class GuardedExchange:
    """The route handler of one render: answers the document from the static read and every
    other request through the guarded client, within the render's limits."""

    def __init__(
        self,
        *,
        url: str,
        document: bytes,
        guard: Guard,
        limits: RenderLimits,
        resolver: Resolver,
        dialler: Dialler,
        user_agent: str,
        ssl_context: ssl.SSLContext | None = None,
    ) -> None:
        self.url = url
        self.host = guard.check(url).host
        self._document: bytes | None = document
        self._guard = guard
        self._limits = limits
        self.tally = Tally()
        self._in_flight = 0
        self._last_activity = time.monotonic()
        backend = GuardedBackend(resolver, dialler, guard.private)
        self._client = httpx.AsyncClient(
            transport=PinnedTransport(backend, ssl_context=ssl_context),
            trust_env=False,
            follow_redirects=False,
            timeout=httpx.Timeout(REQUEST_TIMEOUT_SECONDS),
            headers={"User-Agent": user_agent, "Accept-Encoding": ACCEPT_ENCODING},
        )

    async def aclose(self) -> None:
        await self._client.aclose()

    @property
    def other_hosts(self) -> list[str]:
        """Hosts other than the page's own that were sent a request, sorted."""
        return sorted(h for h in self.tally.hosts if h != self.host)

    async def settled(self, quiet: float, limit: float) -> None:
        """Return once no request has been in flight for ``quiet`` seconds (scripts that
        fetch their content have fetched it), or after ``limit`` seconds at most.

        The route handler sees every request, so this needs no guess from the browser's
        own idle heuristics (which wait a fixed half second).
        """
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            if self._in_flight == 0 and time.monotonic() - self._last_activity >= quiet:
                return
            await asyncio.sleep(0.05)

    async def handle(self, route: Route) -> None:
        """Playwright route handler: fulfil the request from the guarded client, or abort."""
        from playwright.async_api import Error as PlaywrightError

        self._in_flight += 1
        self._last_activity = time.monotonic()
        try:
            await self._handle(route)
        except PlaywrightError:
            # The page or its context closed while the request was out (the render ended);
            # there is no one left to answer.
            logger.debug("a rendered page's request outlived its page")
        finally:
            self._in_flight -= 1
            self._last_activity = time.monotonic()

    async def _handle(self, route: Route) -> None:
        request = route.request
        if self._document is not None and request.is_navigation_request():
            # The first navigation is the ``goto`` of the page itself, whose document the
            # static fetch already read (and checked): it is not fetched again.
            body, self._document = self._document, None
            await route.fulfill(
                status=200, headers={"content-type": "text/html; charset=utf-8"}, body=body
            )
            return
        refusal = self._refusal(request.method, request.resource_type)
        if refusal is not None:
            self.tally.refuse(refusal)
            await route.abort("blockedbyclient")
            return
        headers = await request.all_headers()
        forwarded = {k: v for k, v in headers.items() if k.lower() in FORWARDED_HEADERS}
        try:
            answer = await self._send(request.method, request.url, forwarded)
        except RenderRefusal as refused:
            self.tally.refuse(refused.reason)
            await route.abort("blockedbyclient")
            return
        except (httpx.HTTPError, TimeoutError, OSError, CapabilityError) as exc:
            logger.info("a rendered page's request failed: %s", type(exc).__name__)
            reason = getattr(exc, "reason", None) or "network"
            self.tally.refuse(str(reason))
            await route.abort("failed")
            return
        status, response_headers, body = answer
        await route.fulfill(status=status, headers=response_headers, body=body)

    async def refuse_socket(self, socket: WebSocketRoute) -> None:
        """WebSocket route handler: the socket is closed before it connects anywhere."""
        self.tally.refuse("websocket")
        await socket.close(code=1008, reason="WebSockets are not opened when rendering")

    def _refusal(self, method: str, resource_type: str) -> str | None:
        if resource_type in SKIPPED_TYPES:
            return "not_loaded"
        if method not in ("GET", "HEAD"):
            return "method"
        if self.tally.sent >= self._limits.max_requests:
            return "request_limit"
        if self.tally.bytes >= self._limits.max_bytes:
            return "byte_limit"
        return None

    def _check(self, url: str) -> str:
        """The host of ``url`` if the guard and the hosts setting allow it, else RenderRefusal."""
        try:
            target = self._guard.check(url)
        except CapabilityError as exc:
            raise RenderRefusal(exc.reason or "target") from None
        if target.private and target.host != self.host:
            # fetch.private_network opens a home host to calls that name it, each approved;
            # never to the scripts of another page.
            raise RenderRefusal("private_address")
        if self._limits.hosts == "same-site" and not same_site(target.host, self.host):
            raise RenderRefusal("other_site")
        return target.host

    async def _send(
        self, method: str, url: str, headers: dict[str, str]
    ) -> tuple[int, dict[str, str], bytes]:
        for _hop in range(MAX_HOPS + 1):
            host = self._check(url)
            if self.tally.sent >= self._limits.max_requests:
                raise RenderRefusal("request_limit")
            self.tally.sent += 1
            request = self._client.build_request(method, url, headers=headers)
            async with asyncio.timeout(REQUEST_TIMEOUT_SECONDS):
                response = await self._client.send(request, stream=True)
                try:
                    # Counted as contacted once a connection carried the request.
                    self.tally.hosts.add(host)
                    following = location(response)
                    if following is not None:
                        url = following
                        continue
                    body = await self._read(response)
                    kept = {
                        k: v
                        for k, v in response.headers.multi_items()
                        if k.lower() not in DROPPED_HEADERS
                    }
                    return response.status_code, kept, body
                finally:
                    await response.aclose()
        raise RenderRefusal("too_many_redirects")

    async def _read(self, response: httpx.Response) -> bytes:
        """The body, counted against the render's byte budget as it arrives (requests run
        concurrently, so the budget is shared piece by piece, not reserved up front)."""
        out = bytearray()
        try:
            async for piece in decoded(response):
                self.tally.bytes += len(piece)
                if self.tally.bytes > self._limits.max_bytes:
                    raise RenderRefusal("byte_limit")
                out += piece
        except UnsupportedEncoding:
            raise RenderRefusal("encoding") from None
        return bytes(out)


class RenderRefusal(UpstreamError):
    """A request of the rendered page is refused; ``reason`` says why. It is counted and the
    request aborted: it never leaves this module."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason
