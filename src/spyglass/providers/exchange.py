"""One bounded HTTP exchange with a hosted provider, and the failure taxonomy both tools share.

Adapters (search or fetch) describe requests as :class:`ProviderRequest`; :func:`send` sends
one with the configured deadline, reads at most ``max_bytes`` of (decoded) body while
streaming, and turns network failures into failures of the caller's kind. :func:`status_failure`
maps an HTTP status no adapter explained. Messages name the provider, the status and the
setting to change, never a URL or a key.
"""

from __future__ import annotations

import asyncio
import functools
import ssl
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeVar

from spyglass.errors import CapabilityError
from spyglass.net.errors import UNRESOLVED_NAME
from spyglass.providers.clients import NO_POOL, ProviderClients, make_client
from spyglass.version import __version__

if TYPE_CHECKING:
    import httpx

    from spyglass.net.faults import Fault

#: The failure kinds; a tool's code is ``<SECTION>_<KIND>`` (``SEARCH_AUTH_FAILED``).
NOT_CONFIGURED = "NOT_CONFIGURED"
AUTH_FAILED = "AUTH_FAILED"
QUOTA_EXCEEDED = "QUOTA_EXCEEDED"
RATE_LIMITED = "RATE_LIMITED"
UNAVAILABLE = "PROVIDER_UNAVAILABLE"
REJECTED = "PROVIDER_REJECTED"
INVALID_OUTPUT = "INVALID_OUTPUT"

#: Statuses a later attempt may not meet: timeouts, "too early", rate limits (5xx too).
RETRYABLE_STATUSES = frozenset({408, 425, 429})

#: Browser-like, so self-hosted SearXNG's bot detection does not refuse us, while still
#: saying who we are.
USER_AGENT = f"Mozilla/5.0 (compatible; Spyglass/{__version__})"


class ProviderFailure(CapabilityError):
    """A provider could not answer; ``code`` is ``<SECTION>_<KIND>``."""

    def __init__(
        self, code: str, message: str, *, retryable: bool = False, reason: str | None = None
    ) -> None:
        # Missing configuration stops a call before any connection: a refusal.
        status: Literal["failed", "rejected"] = (
            "rejected" if code.endswith(NOT_CONFIGURED) else "failed"
        )
        super().__init__(code, message, retryable=retryable, status=status, reason=reason)


@dataclass(frozen=True)
class Endpoint:
    """Where a provider is reached and with which key (the key never appears in ``repr``)."""

    base_url: str
    api_key: str | None = field(default=None, repr=False)

    def url(self, path: str) -> str:
        """``path`` under the base URL (which may carry a path prefix of its own)."""
        return self.base_url.rstrip("/") + "/" + path.lstrip("/")


@dataclass(frozen=True)
class ProviderRequest:
    """A description of one HTTP request; :func:`send` sends it."""

    method: Literal["GET", "POST"]
    url: str
    params: Mapping[str, str] = field(default_factory=dict)
    headers: Mapping[str, str] = field(default_factory=dict, repr=False)
    json: Any = None
    form: Mapping[str, str] | None = None


@dataclass(frozen=True)
class ProviderResponse:
    status: int
    body: bytes


F = TypeVar("F", bound=ProviderFailure)


@dataclass(frozen=True)
class Failures(Generic[F]):
    """How one tool names its failures: ``section`` prefixes codes and setting names."""

    section: Literal["search", "fetch"]
    kind: type[F]

    def __call__(
        self, kind: str, message: str, *, retryable: bool = False, reason: str | None = None
    ) -> F:
        return self.kind(
            f"{self.section.upper()}_{kind}", message, retryable=retryable, reason=reason
        )


@functools.cache
def _ssl_context() -> ssl.SSLContext:
    # Building a context loads the CA bundle (tens of milliseconds); it holds no loop state,
    # so one is shared by every client.
    import httpx

    return httpx.create_ssl_context()


async def send(
    provider: str,
    request: ProviderRequest,
    *,
    timeout: float,
    max_bytes: int,
    failures: Failures[Any],
    address_key: str | None = None,
    clients: ProviderClients | None = None,
) -> ProviderResponse:
    """Send ``request`` and read its body under ``max_bytes`` and ``timeout`` (total).

    ``address_key`` is the settings key that set the provider's address, when the owner set
    one; failure messages point at it, and name no key that does not exist. ``clients``
    keeps a connection per provider between exchanges (a new client per exchange without).
    """
    # The HTTP client is imported by the first exchange: describing providers and checking
    # their settings (at every start) must not pay for it.
    import httpx

    from spyglass.net.body import ACCEPT_ENCODING
    from spyglass.net.faults import Fault, classify

    headers = {"User-Agent": USER_AGENT, **request.headers, "Accept-Encoding": ACCEPT_ENCODING}
    pool = clients or NO_POOL
    try:
        async with (
            asyncio.timeout(timeout),
            pool.client(provider, lambda: make_client(timeout, _ssl_context())) as client,
            client.stream(
                request.method,
                request.url,
                params=dict(request.params) or None,
                headers=headers,
                json=request.json,
                data=dict(request.form) if request.form is not None else None,
                timeout=httpx.Timeout(timeout),
            ) as response,
        ):
            body = await _read_bounded(provider, response, max_bytes, failures)
            return ProviderResponse(response.status_code, body)
    except TimeoutError:
        raise _timed_out(provider, timeout, failures) from None
    except (httpx.HTTPError, httpx.InvalidURL) as exc:
        fault = classify(exc)
        if fault is Fault.TIMEOUT:
            raise _timed_out(provider, timeout, failures) from None
        # A name that could not be looked up opened no connection: the request (the query,
        # the page's address) never reached the provider, and the receipt says so.
        raise failures(
            UNAVAILABLE,
            _unreachable(provider, fault, address_key),
            retryable=True,
            reason=UNRESOLVED_NAME if fault is Fault.NAME else None,
        ) from None


def _timed_out(provider: str, timeout: float, failures: Failures[F]) -> F:
    return failures(
        UNAVAILABLE,
        f"{provider} did not answer within {round(timeout, 1):g} seconds; try again later or "
        f"raise {failures.section}.timeout_seconds",
        retryable=True,
    )


def _unreachable(provider: str, fault: Fault, address_key: str | None) -> str:
    """What to tell the person; names ``address_key`` only when the owner set that key."""
    from spyglass.net.faults import Fault

    check = f"; check {address_key}" if address_key else ""
    if fault is Fault.NAME:
        return (
            f"{provider}'s address could not be looked up: this machine may be offline or "
            f"have no working DNS{check}"
        )
    if fault is Fault.UNREACHABLE:
        return f"the network is unreachable: this machine seems to be offline{check}"
    if fault is Fault.REFUSED:
        return f"{provider} refused the connection: is it running?{check}"
    if fault is Fault.TLS:
        return f"{provider}'s TLS certificate could not be verified{check}"
    if fault is Fault.CONNECT:
        return f"could not connect to {provider}; try again later{check}"
    return f"the connection to {provider} failed; try again later{check}"


async def _read_bounded(
    provider: str, response: httpx.Response, max_bytes: int, failures: Failures[Any]
) -> bytes:
    # The same bounded reader web.fetch uses: compressed bodies are counted after inflating,
    # in small steps, so a gzip bomb stops at the bound instead of filling memory first.
    from spyglass.net.body import BodyTooLarge, UnsupportedEncoding, read_body

    try:
        return await read_body(response, max_bytes)
    except BodyTooLarge:
        raise failures(
            INVALID_OUTPUT,
            f"{provider} sent more than {_size(max_bytes)}; the response was not read",
        ) from None
    except UnsupportedEncoding:
        raise failures(
            INVALID_OUTPUT, f"{provider} sent a body in a content encoding Spyglass cannot read"
        ) from None


def _size(limit: int) -> str:
    mib = limit / (1024 * 1024)
    return f"{mib:g} MiB" if mib == int(mib) else f"{limit:,} bytes"


def status_failure(name: str, status: int, *, needs_key: bool, failures: Failures[F]) -> F:
    """The generic failure for a non-2xx status the adapter did not explain itself."""
    section = failures.section
    if status in (401, 403):
        if needs_key:
            return failures(
                AUTH_FAILED,
                f"{name} refused the API key (HTTP {status}); check {section}.{name}.api_key "
                f"or SPYGLASS_{section.upper()}__{name.upper()}__API_KEY",
            )
        return failures(
            REJECTED, f"{name} refused the request (HTTP {status}); try another provider"
        )
    if status == 402:
        return failures(
            QUOTA_EXCEEDED,
            f"{name} says the account is out of credits (HTTP 402); top up the {name} "
            f"account or switch {section}.providers",
        )
    if status == 429:
        return failures(
            RATE_LIMITED,
            f"{name} is rate-limiting these requests (HTTP 429); wait a minute and try again",
            retryable=True,
        )
    if status in RETRYABLE_STATUSES or status >= 500:
        return failures(
            UNAVAILABLE, f"{name} is unavailable (HTTP {status}); try again later", retryable=True
        )
    if 300 <= status < 400:
        return failures(
            REJECTED,
            f"{name} answered with a redirect (HTTP {status}); set {section}.{name}.base_url to "
            "the address it redirects to",
        )
    return failures(
        REJECTED,
        f"{name} refused the request (HTTP {status}); "
        + (
            "the query or its filters may not be supported there"
            if section == "search"
            else "it may not be able to read this page"
        ),
    )
