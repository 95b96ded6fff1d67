"""Keenable search API (``X-API-Key``). ``snippet`` may hold a whole page; it is cut.

Keenable takes one ``site`` rather than include/exclude lists: several include domains fan
out to one bounded request per domain, and an excluding search is one unfiltered request
that over-fetches (at most 50 rows) so the exclusions, applied locally, still leave
``count`` results. Recency is a relative ``published_after`` delta.
"""

from __future__ import annotations

from typing import ClassVar

from spyglass.providers.explain import explain
from spyglass.search.model import (
    AUTH_FAILED,
    ParsedPage,
    RawResult,
    SearchFailure,
    SearchQuery,
)
from spyglass.search.provider import (
    Endpoint,
    Provider,
    ProviderRequest,
    first_text,
)

#: How far back each ``time_range`` reaches, as Keenable's relative ``published_after``.
PUBLISHED_AFTER = {"day": "1d", "week": "7d", "month": "30d", "year": "365d"}
#: Rows an excluding search asks for, so local filtering still leaves ``count`` results.
EXCLUDING_ROWS = 50


class Keenable(Provider):
    name: ClassVar[str] = "keenable"
    display_name: ClassVar[str] = "Keenable"
    default_base_url: ClassVar[str | None] = "https://api.keenable.ai"
    supports_time_range: ClassVar[bool] = True
    max_count: ClassVar[int] = 20
    operators: ClassVar[tuple[str, ...]] = ()

    def build_request(self, query: SearchQuery, endpoint: Endpoint) -> ProviderRequest:
        return self.build_requests(query, endpoint)[0]

    def build_requests(self, query: SearchQuery, endpoint: Endpoint) -> list[ProviderRequest]:
        count = min(query.count, self.max_count)
        if query.exclude_domains:
            count = EXCLUDING_ROWS
        params = {"query": query.text, "count": str(count)}
        if query.time_range:
            params["published_after"] = PUBLISHED_AFTER[query.time_range]
        sites: list[str | None] = list(query.include_domains) or [None]
        return [
            ProviderRequest(
                "GET",
                endpoint.url("v1/search"),
                params={**params, "site": site} if site else params,
                headers={"Accept": "application/json", "X-API-Key": endpoint.api_key or ""},
            )
            for site in sites
        ]

    def explain_error(self, status: int, body: bytes) -> SearchFailure | None:
        # Keenable answers a malformed key with 400, not 401.
        if status == 400 and "key" in explain(body).lower():
            return SearchFailure(
                AUTH_FAILED,
                "keenable refused the API key as malformed (HTTP 400); check "
                "search.keenable.api_key or SPYGLASS_SEARCH__KEENABLE__API_KEY",
            )
        return None

    def parse(self, body: bytes, query: SearchQuery) -> ParsedPage:
        data = self.load_json(body)
        if not isinstance(data, dict) or not isinstance(data.get("results"), list):
            raise self.invalid("a results list")
        return ParsedPage(
            [
                RawResult(
                    title=first_text(item, "title"),
                    url=first_text(item, "url"),
                    # The meta description is usually empty; the page text is in ``snippet``.
                    snippet=first_text(item, "snippet", "description"),
                )
                for item in data["results"]
                if isinstance(item, dict)
            ]
        )
