"""One guarded fetch: check, connect pinned, follow allowed redirects, read under caps.

:class:`Fetcher` owns an httpx client built on :class:`PinnedTransport`; every hop goes
through the guard (URL rules, domain lists, robots when on) before a request is made and
through the guarded backend (DNS answers, pinned dial) when a connection is opened. It
downloads only: a :class:`FetchedPage` holds the body and its media type, and what the page
says is read from them by ``web.fetch`` (:func:`spyglass.extract.to_document`).
"""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import MutableMapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from types import TracebackType

import httpx

from spyglass.errors import CapabilityError
from spyglass.extract.document import PDF, MediaType, sniff, unsupported
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
    """One fetch's outcome as downloaded: the body and what it is, before anything reads it."""

    url: str
    final_url: str
    status: int
    #: What the body is: the declared type, or the one sniffed from a body that declared none
    #: (empty for a redirect not followed).
    media: MediaType
    body: bytes = field(repr=False)
    #: A redirect to another site, not followed: ``final_url`` is where it points, and
    #: nothing was downloaded.
    redirected: bool
    redirect_chain: tuple[str, ...]
    retrieved_at: str
    #: Set when the page was larger than ``fetch.max_page_bytes``: only this many decoded
    #: bytes were read.
    cut_at_bytes: int | None = None

    @property
    def content_type(self) -> str:
        """The media type's essence (``text/html``), as results report it."""
        return self.media.essence


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
    ) -> FetchedPage:
        """Fetch ``url`` within the total deadline; every failure is a CapabilityError."""
        seconds = self.config.timeout_seconds
        try:
            async with asyncio.timeout(seconds):
                return await self._download(url, robots_cache)
        except TimeoutError:
            raise errors.timeout(seconds) from None
        except httpx.HTTPError as exc:
            if classify(exc) is Fault.TIMEOUT:
                raise errors.timeout(seconds) from None
            raise _network_failure(exc) from None

    async def _download(
        self, url: str, robots_cache: MutableMapping[str, RobotsRules] | None
    ) -> FetchedPage:
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
                        unread = MediaType("", None)
                        return _page(url, following, response.status_code, unread, b"", chain)
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
                return _page(
                    url,
                    str(response.url),
                    response.status_code,
                    media,
                    body,
                    chain,
                    reached=True,
                    cut_at_bytes=cap if cut else None,
                )
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
    url: str,
    final_url: str,
    status: int,
    media: MediaType,
    body: bytes,
    chain: list[str],
    *,
    reached: bool = False,
    cut_at_bytes: int | None = None,
) -> FetchedPage:
    """The page after ``chain``: ``reached``, or a redirect to ``final_url`` not followed."""
    return FetchedPage(
        url=url,
        final_url=final_url,
        status=status,
        media=media,
        body=body,
        redirected=not reached,
        cut_at_bytes=cut_at_bytes,
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
    return CapabilityError(
        errors.NETWORK_ERROR,
        message,
        retryable=fault is not Fault.TLS,
        reason=errors.UNRESOLVED_NAME if fault is Fault.NAME else None,
    )
