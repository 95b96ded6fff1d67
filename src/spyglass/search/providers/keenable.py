"""Keenable search API (``X-API-Key``). ``snippet`` may hold a whole page; it is cut."""

from __future__ import annotations

from typing import ClassVar

from spyglass.search.model import ParsedPage, RawResult, SearchQuery
from spyglass.search.provider import (
    Endpoint,
    Provider,
    ProviderRequest,
    first_text,
    join_url,
    site_terms,
)


class Keenable(Provider):
    name: ClassVar[str] = "keenable"
    default_base_url: ClassVar[str | None] = "https://api.keenable.ai"
    supports_time_range: ClassVar[bool] = False
    max_count: ClassVar[int] = 20
    operators: ClassVar[tuple[str, ...]] = ()

    def build_request(self, query: SearchQuery, endpoint: Endpoint) -> ProviderRequest:
        return ProviderRequest(
            "GET",
            join_url(endpoint.base_url, "v1/search"),
            params={"query": site_terms(query), "count": str(min(query.count, self.max_count))},
            headers={"Accept": "application/json", "X-API-Key": endpoint.api_key or ""},
        )

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
