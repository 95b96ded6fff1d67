"""Firecrawl search API v2 (Bearer key). Accepts both ``data.web[]`` (v2) and ``data[]`` (v1)."""

from __future__ import annotations

from typing import Any, ClassVar

from spyglass.providers.explain import explanation
from spyglass.search.model import (
    AUTH_FAILED,
    QUOTA_EXCEEDED,
    REJECTED,
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
    json_or_none,
    site_terms,
)

_TBS = {"day": "qdr:d", "week": "qdr:w", "month": "qdr:m", "year": "qdr:y"}


def _said(body: bytes) -> str:
    data = json_or_none(body)
    return explanation(data.get("error")) if isinstance(data, dict) else ""


class Firecrawl(Provider):
    name: ClassVar[str] = "firecrawl"
    display_name: ClassVar[str] = "Firecrawl"
    default_base_url: ClassVar[str | None] = "https://api.firecrawl.dev"
    supports_time_range: ClassVar[bool] = True
    max_count: ClassVar[int] = 20
    operators: ClassVar[tuple[str, ...]] = (
        "site:",
        '"exact phrase"',
        "-term",
        "inurl:",
        "intitle:",
    )

    def build_request(self, query: SearchQuery, endpoint: Endpoint) -> ProviderRequest:
        payload: dict[str, Any] = {
            "query": site_terms(query)[:500],
            "limit": min(query.count, self.max_count),
            "sources": [{"type": "web"}],
            # An indexed URL Firecrawl cannot scrape must not fail the whole search.
            "ignoreInvalidURLs": True,
        }
        if query.time_range:
            payload["tbs"] = _TBS[query.time_range]
        return ProviderRequest(
            "POST",
            endpoint.url("v2/search"),
            json=payload,
            headers={
                "Accept": "application/json",
                "Authorization": f"Bearer {endpoint.api_key or ''}",
            },
        )

    def explain_error(self, status: int, body: bytes) -> SearchFailure | None:
        said = _said(body)
        suffix = f" ({said})" if said else ""
        if status == 402:
            return SearchFailure(
                QUOTA_EXCEEDED,
                f"firecrawl says the account is out of credits{suffix}; add credits or "
                "upgrade the Firecrawl plan",
            )
        if status == 401:
            return SearchFailure(
                AUTH_FAILED,
                "firecrawl refused the API key (HTTP 401); check search.firecrawl.api_key or "
                "SPYGLASS_SEARCH__FIRECRAWL__API_KEY",
            )
        if status == 403:
            # Firecrawl also uses 403 for refused targets and features: not evidence of a bad
            # key, and a retry will not change it.
            return SearchFailure(
                REJECTED,
                "firecrawl refused this search (HTTP 403): the query or a feature it needs may "
                "be unsupported or blocked there; change the query or the provider",
            )
        if status == 400:
            return SearchFailure(
                REJECTED,
                f"firecrawl refused the search parameters{suffix}; change the query or its filters",
            )
        return None

    def parse(self, body: bytes, query: SearchQuery) -> ParsedPage:
        data = self.load_json(body)
        if not isinstance(data, dict):
            raise self.invalid("a JSON object")
        if data.get("success") is False:
            said = explanation(data.get("error"))
            raise self.invalid("success" + (f" (it said: {said})" if said else ""))
        content = data.get("data")
        items: Any = content.get("web") if isinstance(content, dict) else content
        if not isinstance(items, list):
            raise self.invalid("data.web")
        return ParsedPage(
            [
                RawResult(
                    title=first_text(item, "title"),
                    url=first_text(item, "url"),
                    snippet=first_text(item, "description", "snippet"),
                )
                for item in items
                if isinstance(item, dict)
            ]
        )
