"""Kagi Search API (``Authorization: Bot``). Failures arrive as codes in an ``error`` list."""

from __future__ import annotations

from typing import ClassVar

from spyglass.providers.explain import explanation
from spyglass.search.model import (
    AUTH_FAILED,
    QUOTA_EXCEEDED,
    REJECTED,
    UNAVAILABLE,
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


class Kagi(Provider):
    name: ClassVar[str] = "kagi"
    display_name: ClassVar[str] = "Kagi"
    default_base_url: ClassVar[str | None] = "https://kagi.com/api/v0"
    supports_time_range: ClassVar[bool] = False
    max_count: ClassVar[int] = 20
    operators: ClassVar[tuple[str, ...]] = (
        "site:",
        '"exact phrase"',
        "-term",
        "filetype:",
        "inurl:",
        "intitle:",
    )

    def build_request(self, query: SearchQuery, endpoint: Endpoint) -> ProviderRequest:
        return ProviderRequest(
            "GET",
            endpoint.url("search"),
            params={"q": site_terms(query), "limit": str(min(query.count, self.max_count))},
            headers={"Accept": "application/json", "Authorization": f"Bot {endpoint.api_key}"},
        )

    def explain_error(self, status: int, body: bytes) -> SearchFailure | None:
        data = json_or_none(body)
        errors = data.get("error") if isinstance(data, dict) else None
        if not isinstance(errors, list) or not errors or not isinstance(errors[0], dict):
            return None
        code = errors[0].get("code")
        said = explanation(errors[0].get("msg"))
        suffix = f" ({said})" if said else ""
        if code == 2:
            return SearchFailure(
                AUTH_FAILED,
                f"kagi refused the API key{suffix}; check search.kagi.api_key or "
                "SPYGLASS_SEARCH__KAGI__API_KEY",
            )
        if code in (100, 101):
            return SearchFailure(
                QUOTA_EXCEEDED,
                f"kagi has no credit or billing for this key{suffix}; add API credit in the "
                "Kagi billing settings",
            )
        if code == 1:
            return SearchFailure(
                REJECTED, f"kagi refused the request{suffix}; change the query or its filters"
            )
        return SearchFailure(
            UNAVAILABLE, f"kagi had an internal error{suffix}; try again later", retryable=True
        )

    def parse(self, body: bytes, query: SearchQuery) -> ParsedPage:
        data = self.load_json(body)
        if not isinstance(data, dict) or not isinstance(data.get("data"), list):
            raise self.invalid("a data list")
        return ParsedPage(
            [
                RawResult(
                    title=first_text(item, "title"),
                    url=first_text(item, "url"),
                    snippet=first_text(item, "snippet"),
                )
                for item in data["data"]
                # t == 1 entries are related searches, not results.
                if isinstance(item, dict) and item.get("t") == 0
            ]
        )
