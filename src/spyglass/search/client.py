"""The shared sending code: one bounded HTTP exchange with a provider, and status mapping.

Adapters describe requests; this module sends them with the configured deadline, reads at
most 2 MiB of (decoded) body while streaming, and turns network failures and HTTP statuses
into the ``SEARCH_*`` codes. Messages name the provider and the status, never a URL or key.
"""

from __future__ import annotations

import asyncio
import functools
import ssl
from dataclasses import dataclass

import httpx

from spyglass.fetch.body import ACCEPT_ENCODING, BodyTooLarge, UnsupportedEncoding, read_body
from spyglass.netfaults import Fault, classify
from spyglass.search.model import (
    AUTH_FAILED,
    INVALID_OUTPUT,
    QUOTA_EXCEEDED,
    RATE_LIMITED,
    REJECTED,
    UNAVAILABLE,
    ParsedPage,
    SearchFailure,
    SearchQuery,
)
from spyglass.search.provider import Endpoint, Provider, ProviderRequest
from spyglass.version import __version__

MAX_BODY_BYTES = 2 * 1024 * 1024

#: Browser-like, so self-hosted SearXNG's bot detection does not refuse us, while still
#: saying who we are.
USER_AGENT = f"Mozilla/5.0 (compatible; Spyglass/{__version__})"


@dataclass(frozen=True)
class ProviderResponse:
    status: int
    body: bytes


@functools.cache
def _ssl_context() -> ssl.SSLContext:
    # Building a context loads the CA bundle (tens of milliseconds); it holds no loop state,
    # so one is shared by every client.
    return httpx.create_ssl_context()


async def send(
    provider: str,
    request: ProviderRequest,
    *,
    timeout: float,
    address_key: str | None = None,
) -> ProviderResponse:
    """Send ``request`` and read its body under the size bound and ``timeout`` (total).

    ``address_key`` is the settings key that set the provider's address, when the owner set
    one; failure messages point at it, and name no key that does not exist.
    """
    headers = {"User-Agent": USER_AGENT, **request.headers, "Accept-Encoding": ACCEPT_ENCODING}
    try:
        async with (
            asyncio.timeout(timeout),
            httpx.AsyncClient(
                verify=_ssl_context(),
                timeout=httpx.Timeout(timeout),
                follow_redirects=False,
                # Providers are reached directly: no proxy or netrc from the environment.
                trust_env=False,
            ) as client,
            client.stream(
                request.method,
                request.url,
                params=dict(request.params) or None,
                headers=headers,
                json=request.json,
                data=dict(request.form) if request.form is not None else None,
            ) as response,
        ):
            body = await _read_bounded(provider, response)
            return ProviderResponse(response.status_code, body)
    except TimeoutError:
        raise _timed_out(provider, timeout) from None
    except (httpx.HTTPError, httpx.InvalidURL) as exc:
        fault = classify(exc)
        if fault is Fault.TIMEOUT:
            raise _timed_out(provider, timeout) from None
        raise SearchFailure(
            UNAVAILABLE, _unreachable(provider, fault, address_key), retryable=True
        ) from None


def _timed_out(provider: str, timeout: float) -> SearchFailure:
    return SearchFailure(
        UNAVAILABLE,
        f"{provider} did not answer within {round(timeout, 1):g} seconds; try again later or "
        "raise search.timeout_seconds",
        retryable=True,
    )


def _unreachable(provider: str, fault: Fault, address_key: str | None) -> str:
    """What to tell the person; names ``address_key`` only when the owner set that key."""
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


async def _read_bounded(provider: str, response: httpx.Response) -> bytes:
    # The same bounded reader web.fetch uses: compressed bodies are counted after inflating,
    # in small steps, so a gzip bomb stops at the bound instead of filling memory first.
    try:
        return await read_body(response, MAX_BODY_BYTES)
    except BodyTooLarge:
        raise SearchFailure(
            INVALID_OUTPUT,
            f"{provider} sent more than {MAX_BODY_BYTES // (1024 * 1024)} MiB; "
            "the response was not read",
        ) from None
    except UnsupportedEncoding:
        raise SearchFailure(
            INVALID_OUTPUT,
            f"{provider} sent a body in a content encoding Spyglass cannot read",
        ) from None


def status_failure(provider: Provider, status: int) -> SearchFailure:
    """The generic failure for a non-2xx status the adapter did not explain itself."""
    name = provider.name
    if status in (401, 403):
        if provider.needs_key:
            return SearchFailure(
                AUTH_FAILED,
                f"{name} refused the API key (HTTP {status}); check search.{name}.api_key "
                f"or SPYGLASS_SEARCH__{name.upper()}__API_KEY",
            )
        return SearchFailure(
            REJECTED, f"{name} refused the request (HTTP {status}); try another provider"
        )
    if status == 402:
        return SearchFailure(
            QUOTA_EXCEEDED,
            f"{name} says the account is out of credits (HTTP 402); top up the {name} "
            "account or switch search.providers",
        )
    if status == 429:
        return SearchFailure(
            RATE_LIMITED,
            f"{name} is rate-limiting these searches (HTTP 429); wait a minute and try again",
            retryable=True,
        )
    if status == 408 or status >= 500:
        return SearchFailure(
            UNAVAILABLE,
            f"{name} is unavailable (HTTP {status}); try again later",
            retryable=True,
        )
    if 300 <= status < 400:
        return SearchFailure(
            REJECTED,
            f"{name} answered with a redirect (HTTP {status}); set search.{name}.base_url to "
            "the address it redirects to",
        )
    return SearchFailure(
        REJECTED,
        f"{name} refused the request (HTTP {status}); the query or its filters may not be "
        "supported there",
    )


async def ask(
    provider: Provider, endpoint: Endpoint, query: SearchQuery, *, timeout: float
) -> ParsedPage:
    """One complete exchange with ``provider``: request, bounded response, parsed page."""
    owner_set = endpoint.base_url != provider.default_base_url
    response = await send(
        provider.name,
        provider.build_request(query, endpoint),
        timeout=timeout,
        address_key=f"search.{provider.name}.base_url" if owner_set else None,
    )
    failure = provider.explain_error(response.status, response.body)
    if failure is not None:
        raise failure
    if not 200 <= response.status < 300:
        raise status_failure(provider, response.status)
    return provider.parse(response.body, query)
