"""Asking one search provider: the shared bounded exchange, then the adapter's parser.

Sending, the deadline, the 2 MiB bound and the generic status mapping are the shared
provider exchange (:mod:`spyglass.providers.exchange`); this module adds the search side.
"""

from __future__ import annotations

import asyncio
from itertools import zip_longest

from spyglass.providers.clients import ProviderClients
from spyglass.providers.exchange import USER_AGENT, ProviderRequest, ProviderResponse
from spyglass.providers.exchange import send as _send
from spyglass.providers.exchange import status_failure as _status_failure
from spyglass.search.model import FAILURES, ParsedPage, SearchFailure, SearchQuery
from spyglass.search.provider import Endpoint, Provider

__all__ = ["MAX_BODY_BYTES", "USER_AGENT", "ask", "send", "status_failure"]

MAX_BODY_BYTES = 2 * 1024 * 1024


async def send(
    provider: str,
    request: ProviderRequest,
    *,
    timeout: float,
    address_key: str | None = None,
    clients: ProviderClients | None = None,
) -> ProviderResponse:
    """Send ``request`` and read its body under the 2 MiB bound and ``timeout`` (total)."""
    return await _send(
        provider,
        request,
        timeout=timeout,
        max_bytes=MAX_BODY_BYTES,
        failures=FAILURES,
        address_key=address_key,
        clients=clients,
    )


def status_failure(provider: Provider, status: int) -> SearchFailure:
    """The generic failure for a non-2xx status the adapter did not explain itself."""
    failure = _status_failure(
        provider.name, status, needs_key=provider.needs_key, failures=FAILURES
    )
    assert isinstance(failure, SearchFailure)
    return failure


async def ask(
    provider: Provider,
    endpoint: Endpoint,
    query: SearchQuery,
    *,
    timeout: float,
    clients: ProviderClients | None = None,
) -> ParsedPage:
    """One complete exchange with ``provider``: request(s), bounded responses, parsed page.

    A provider that fans out (one request per include domain) gets its requests sent
    concurrently under the same deadline; their results are interleaved, so each domain is
    represented before the count cuts the list.
    """
    requests = provider.build_requests(query, endpoint)
    pages = await asyncio.gather(
        *(
            _one(provider, endpoint, request, query, timeout=timeout, clients=clients)
            for request in requests
        )
    )
    if len(pages) == 1:
        return pages[0]
    merged = ParsedPage([])
    for row in zip_longest(*(page.results for page in pages)):
        merged.results.extend(item for item in row if item is not None)
    for page in pages:
        merged.partial = merged.partial or page.partial
        merged.notes.extend(note for note in page.notes if note not in merged.notes)
    return merged


async def _one(
    provider: Provider,
    endpoint: Endpoint,
    request: ProviderRequest,
    query: SearchQuery,
    *,
    timeout: float,
    clients: ProviderClients | None,
) -> ParsedPage:
    owner_set = endpoint.base_url != provider.default_base_url
    response = await send(
        provider.name,
        request,
        timeout=timeout,
        address_key=f"search.{provider.name}.base_url" if owner_set else None,
        clients=clients,
    )
    failure = provider.explain_error(response.status, response.body)
    if failure is not None:
        raise failure
    if not 200 <= response.status < 300:
        raise status_failure(provider, response.status)
    return provider.parse(response.body, query)
