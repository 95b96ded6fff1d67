"""Asking one search provider: the shared adapter exchange, then the adapter's parser.

Sending, the deadline, the bound and the generic status mapping are the shared adapter's
(:meth:`spyglass.providers.adapter.Adapter.exchange`); this module adds the search side: the
2 MiB bound, the fan-out of a provider that needs several requests, and merging their pages.
"""

from __future__ import annotations

import asyncio
from itertools import zip_longest

from spyglass.providers.clients import ProviderClients
from spyglass.providers.exchange import ProviderRequest
from spyglass.search.model import ParsedPage, SearchQuery
from spyglass.search.provider import Endpoint, Provider

__all__ = ["MAX_BODY_BYTES", "ask"]

MAX_BODY_BYTES = 2 * 1024 * 1024


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
    owner_set = endpoint.base_url != provider.default_base_url
    address_key = f"search.{provider.name}.base_url" if owner_set else None

    async def one(request: ProviderRequest) -> ParsedPage:
        body = await provider.exchange(
            request,
            timeout=timeout,
            max_bytes=MAX_BODY_BYTES,
            address_key=address_key,
            clients=clients,
        )
        return provider.parse(body, query)

    pages = await asyncio.gather(
        *(one(request) for request in provider.build_requests(query, endpoint))
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
