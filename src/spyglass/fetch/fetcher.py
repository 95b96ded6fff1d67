"""One guarded fetch: check, connect pinned, follow allowed redirects, read under caps.

:class:`Fetcher` owns an httpx client built on :class:`PinnedTransport`; every hop goes
through the guard (URL rules, domain lists, robots when on) before a request is made and
through the guarded backend (DNS answers, pinned dial) when a connection is opened.
"""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import MutableMapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from types import TracebackType
from typing import TYPE_CHECKING

import httpx

from spyglass.errors import CapabilityError
from spyglass.extract.decode import decode
from spyglass.extract.document import (
    HTML,
    PDF,
    Document,
    MediaType,
    sniff,
    to_document,
    unsupported,
)
from spyglass.fetch.robots import (
    ROBOTS_MAX_BYTES,
    ROBOTS_TIMEOUT_SECONDS,
    RobotsAnswer,
    RobotsRules,
    allowed,
    robots_url,
)
from spyglass.net import errors
from spyglass.net.body import (
    ACCEPT_ENCODING,
    BodyTooLarge,
    UnsupportedEncoding,
    read_body,
    read_prefix,
)
from spyglass.net.dialler import Dialler
from spyglass.net.faults import Fault, classify
from spyglass.net.guard import Guard, Target, guard_for
from spyglass.net.redirects import MAX_HOPS, RedirectPolicy, location
from spyglass.net.resolver import Resolver
from spyglass.net.transport import UNRESOLVED, GuardedBackend, PinnedTransport
from spyglass.settings import FetchSettings

if TYPE_CHECKING:
    from spyglass.fetch.render.report import Rendering

ACCEPT = (
    "text/html,application/xhtml+xml,text/markdown;q=0.9,text/plain;q=0.9,"
    "application/json;q=0.8,application/pdf;q=0.8,*/*;q=0.1"
)
CONNECT_TIMEOUT_SECONDS = 5.0
READ_TIMEOUT_SECONDS = 10.0


@dataclass(frozen=True)
class FetchConfig:
    """What a fetch may reach and how much it reads; built from ``[fetch]`` settings."""

    guard: Guard = field(default_factory=Guard)
    redirects: RedirectPolicy = field(default_factory=RedirectPolicy)
    max_page_bytes: int = 5_000_000
    max_pdf_bytes: int = 20_000_000
    timeout_seconds: float = 15.0
    user_agent: str = "Spyglass"
    respect_robots: bool = False

    @classmethod
    def from_settings(cls, settings: FetchSettings) -> FetchConfig:
        """:class:`~spyglass.errors.ConfigError` when a domain list entry is invalid."""
        return cls(
            guard=guard_for(settings),
            redirects=RedirectPolicy(settings.redirects),
            max_page_bytes=settings.max_page_bytes,
            max_pdf_bytes=settings.max_pdf_bytes,
            timeout_seconds=settings.timeout_seconds,
            user_agent=settings.user_agent,
            respect_robots=settings.respect_robots,
        )


@dataclass(frozen=True)
class FetchedPage:
    """The outcome of one fetch, before pagination."""

    url: str
    final_url: str
    status: int
    content_type: str
    document: Document
    redirected: bool
    redirect_chain: tuple[str, ...]
    retrieved_at: str
    #: Set when the page was larger than ``fetch.max_page_bytes``: only this many decoded
    #: bytes were read and turned into text.
    cut_at_bytes: int | None = None
    #: The decoded HTML, kept only when asked for (a render may need it).
    markup: str | None = field(default=None, repr=False, compare=False)
    #: Set when rendering was considered: whether it happened, and whom the page contacted.
    rendering: Rendering | None = None


class Fetcher:
    """Fetches URLs through the guard. Use as ``async with Fetcher(...) as fetcher``."""

    def __init__(
        self,
        config: FetchConfig,
        resolver: Resolver,
        dialler: Dialler,
        *,
        ssl_context: ssl.SSLContext | None = None,
    ) -> None:
        self.config = config
        self._backend = GuardedBackend(resolver, dialler, config.guard.private)
        transport = PinnedTransport(self._backend, ssl_context=ssl_context)
        self._client = httpx.AsyncClient(
            transport=transport,
            trust_env=False,
            follow_redirects=False,
            timeout=httpx.Timeout(
                min(READ_TIMEOUT_SECONDS, config.timeout_seconds),
                connect=min(CONNECT_TIMEOUT_SECONDS, config.timeout_seconds),
            ),
            headers={
                "User-Agent": config.user_agent,
                "Accept": ACCEPT,
                "Accept-Encoding": ACCEPT_ENCODING,
            },
        )

    async def __aenter__(self) -> Fetcher:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._client.aclose()

    async def fetch(
        self,
        url: str,
        *,
        robots_cache: MutableMapping[str, RobotsRules] | None = None,
        keep_markup: bool = False,
    ) -> FetchedPage:
        """Fetch ``url`` within the total deadline; every failure is a CapabilityError.

        ``keep_markup`` keeps an HTML page's decoded source on the result (for rendering).
        """
        seconds = self.config.timeout_seconds
        try:
            async with asyncio.timeout(seconds):
                page, body, media = await self._download(url, robots_cache)
        except TimeoutError:
            raise errors.timeout(seconds) from None
        except httpx.HTTPError as exc:
            if classify(exc) is Fault.TIMEOUT:
                raise errors.timeout(seconds) from None
            raise _network_failure(exc) from None
        if body is None:
            return page
        if media.essence in HTML or media.essence == PDF:
            # Extraction is CPU work: keep the event loop free for other requests meanwhile.
            document = await asyncio.to_thread(to_document, body, media, page.final_url)
        else:
            document = to_document(body, media, page.final_url)
        return FetchedPage(
            url=page.url,
            final_url=page.final_url,
            status=page.status,
            content_type=page.content_type,
            document=document,
            redirected=page.redirected,
            redirect_chain=page.redirect_chain,
            retrieved_at=page.retrieved_at,
            cut_at_bytes=page.cut_at_bytes,
            markup=decode(body, media.charset, markup=True)
            if keep_markup and media.essence in HTML
            else None,
        )

    async def _download(
        self, url: str, robots_cache: MutableMapping[str, RobotsRules] | None
    ) -> tuple[FetchedPage, bytes | None, MediaType]:
        self._client.cookies.clear()
        chain: list[str] = []
        target = self.config.guard.check(url)
        while True:
            if self.config.respect_robots:
                await self._check_robots(target, robots_cache if robots_cache is not None else {})
            request = self._client.build_request("GET", target.url)
            response = await self._client.send(request, stream=True)
            try:
                following = location(response)
                if following is not None:
                    next_target = self.config.guard.check(following)
                    chain.append(following)
                    if not self.config.redirects.follows(target.host, next_target.host):
                        # Not followed: the person must approve the new address themselves.
                        return (
                            _page(url, following, response.status_code, "", chain, True),
                            None,
                            MediaType("", None),
                        )
                    if len(chain) > MAX_HOPS:
                        raise errors.too_many_redirects(MAX_HOPS)
                    target = next_target
                    continue
                if response.status_code >= 400:
                    raise _http_error(response.status_code, response.reason_phrase)
                media = MediaType.parse(response.headers.get("content-type"))
                if media.essence and not media.allowed:
                    raise unsupported(media.essence)
                cap = (
                    self.config.max_pdf_bytes
                    if media.essence == PDF
                    else self.config.max_page_bytes
                )
                body, cut = await self._read(response, cap, media)
                if not media.essence:
                    media = MediaType(sniff(body), None)
                    if not media.allowed:
                        raise unsupported("")
                    if cut and media.essence == PDF:
                        # Sniffed as a PDF only after reading: cut short, it cannot be parsed.
                        raise errors.too_large(cap, "page")
                page = _page(
                    url, str(response.url), response.status_code, media.essence, chain, False
                )
                if cut:
                    page = replace(page, cut_at_bytes=cap)
                return page, body, media
            finally:
                await response.aclose()

    async def _read(
        self, response: httpx.Response, cap: int, media: MediaType
    ) -> tuple[bytes, bool]:
        """The body, and whether it was cut at ``cap``.

        A page over the cap is kept up to the cap and marked: the start of an article is
        usually the answer (docs/decisions.md). A PDF over its cap is refused, since a PDF
        cut short cannot be parsed (its index sits at the end).
        """
        try:
            if media.essence == PDF:
                return await read_body(response, cap), False
            return await read_prefix(response, cap)
        except BodyTooLarge:
            raise errors.too_large(cap, "PDF") from None
        except UnsupportedEncoding:
            raise CapabilityError(
                errors.UNSUPPORTED_CONTENT,
                "the site sent the page in a compression format web.fetch does not read",
            ) from None

    async def _check_robots(self, target: Target, cache: MutableMapping[str, RobotsRules]) -> None:
        where = robots_url(target.url.scheme, target.host, target.url.port)
        ok = await allowed(str(target.url), where, self.config.user_agent, self._get_robots, cache)
        if not ok:
            raise errors.TargetRejected(
                "robots", "the site's robots.txt asks automated clients not to read this page"
            )

    async def _get_robots(self, where: str) -> RobotsAnswer | None:
        # Same client, same guard: robots.txt is never a side door.
        try:
            self.config.guard.check(where)
            async with asyncio.timeout(ROBOTS_TIMEOUT_SECONDS):
                request = self._client.build_request("GET", where)
                response = await self._client.send(request, stream=True)
                try:
                    if location(response) is not None:
                        return RobotsAnswer(404, b"")
                    body = await read_body(response, ROBOTS_MAX_BYTES)
                    return RobotsAnswer(response.status_code, body)
                finally:
                    await response.aclose()
        except errors.TargetRejected:
            raise
        except (TimeoutError, httpx.HTTPError, BodyTooLarge, UnsupportedEncoding, CapabilityError):
            return None


def _page(
    url: str, final_url: str, status: int, content_type: str, chain: list[str], redirected: bool
) -> FetchedPage:
    return FetchedPage(
        url=url,
        final_url=final_url,
        status=status,
        content_type=content_type,
        document=Document(None, ""),
        redirected=redirected,
        redirect_chain=tuple(chain),
        retrieved_at=datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
    )


def _http_error(status: int, phrase: str) -> CapabilityError:
    retryable = status == 429 or status >= 500
    hint = "try again later" if retryable else "check the address, or fetch another page"
    shown = f"{status} {phrase}".strip()
    return CapabilityError(
        errors.HTTP_ERROR, f"the site answered HTTP {shown}; {hint}", retryable=retryable
    )


#: What the person is told for each kind of network failure (timeouts are reported apart).
_FAILURE_MESSAGES = {
    Fault.TLS: "the site's TLS certificate could not be verified for its name; it was not read",
    Fault.NAME: UNRESOLVED,
    Fault.UNREACHABLE: (
        "the network is unreachable: this machine seems to be offline, or has no route to the site"
    ),
    Fault.REFUSED: "the site refused the connection (nothing answers on that port); try later",
    Fault.CONNECT: "the site could not be reached; try again later",
    Fault.BROKEN: "the connection to the site broke off; try again later",
    Fault.REQUEST: "the request could not be sent to the site; check the address",
}


def _network_failure(exc: httpx.HTTPError) -> CapabilityError:
    fault = classify(exc)
    message = _FAILURE_MESSAGES.get(fault, _FAILURE_MESSAGES[Fault.BROKEN])
    # A certificate will not fix itself by retrying; the rest may.
    return CapabilityError(errors.NETWORK_ERROR, message, retryable=fault is not Fault.TLS)
