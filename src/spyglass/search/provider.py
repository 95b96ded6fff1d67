"""The interface every search provider implements, on the shared adapter base.

An adapter never does I/O: it turns a :class:`SearchQuery` into a :class:`ProviderRequest`,
and a response body into a :class:`ParsedPage` (or a :class:`SearchFailure`). Sending,
timeouts, the size bound and generic status mapping are the shared adapter's
(:class:`spyglass.providers.adapter.Adapter`); result cleaning is :mod:`spyglass.search.cleaning`.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Mapping
from typing import Any, ClassVar

from spyglass import jsontext
from spyglass.providers.adapter import Adapter
from spyglass.providers.exchange import Endpoint, ProviderRequest
from spyglass.search.model import FAILURES, ParsedPage, SearchFailure, SearchQuery

__all__ = ["Endpoint", "Provider", "ProviderRequest"]


class Provider(Adapter[SearchFailure]):
    """One search provider. Subclasses set the class attributes and the two methods."""

    failures = FAILURES
    #: The provider's name as people know it ("DuckDuckGo"), on the approval card.
    display_name: ClassVar[str]
    #: Whether ``time_range`` and domain filters are applied upstream (else locally/noted).
    supports_time_range: ClassVar[bool] = False
    #: Largest number of results one request may ask for.
    max_count: ClassVar[int] = 10
    #: Query operators the provider honours, as the model should write them; the
    #: ``web_search`` tool description lists the ones every configured provider shares.
    operators: ClassVar[tuple[str, ...]] = ()

    @abstractmethod
    def build_request(self, query: SearchQuery, endpoint: Endpoint) -> ProviderRequest:
        """The request that asks this provider for ``query``."""

    def build_requests(self, query: SearchQuery, endpoint: Endpoint) -> list[ProviderRequest]:
        """Every request one search needs; one unless the provider must fan out."""
        return [self.build_request(query, endpoint)]

    @abstractmethod
    def parse(self, body: bytes, query: SearchQuery) -> ParsedPage:
        """Results from a 2xx response body; raises :class:`SearchFailure` when unusable."""


def json_or_none(body: bytes) -> Any:
    """The JSON document in ``body``, or ``None`` when it is not JSON."""
    try:
        return jsontext.loads(body)
    except (UnicodeDecodeError, ValueError):
        return None


def site_terms(query: SearchQuery) -> str:
    """The query text with ``site:`` / ``-site:`` terms for providers that understand them."""
    terms = [query.text]
    if query.include_domains:
        sites = [f"site:{domain}" for domain in query.include_domains]
        terms.append(sites[0] if len(sites) == 1 else "(" + " OR ".join(sites) + ")")
    terms.extend(f"-site:{domain}" for domain in query.exclude_domains)
    return " ".join(terms)


def first_text(item: Mapping[str, Any], *names: str) -> str:
    """The first non-empty string among ``item[name]`` for ``names``; ``""`` if none."""
    for name in names:
        value = item.get(name)
        if isinstance(value, str) and value.strip():
            return value
    return ""
