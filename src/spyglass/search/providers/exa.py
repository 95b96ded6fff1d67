"""Exa search API (``x-api-key``). Snippets come from highlights, never the full page text."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any, ClassVar

from spyglass.providers.explain import explanation
from spyglass.search.model import (
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
)

_SPAN = {"day": 1, "week": 7, "month": 31, "year": 366}


def _said(body: bytes) -> str:
    data = json_or_none(body)
    if not isinstance(data, dict):
        return ""
    tag = data.get("tag")
    text = explanation(data.get("error"))
    if isinstance(tag, str) and tag.isupper() and len(tag) <= 40:
        return f"{tag}: {text}" if text else tag
    return text


def _snippet(item: dict[str, Any]) -> str:
    highlights = item.get("highlights")
    if isinstance(highlights, list):
        parts = [part for part in highlights if isinstance(part, str) and part.strip()]
        if parts:
            return " … ".join(parts)
    # ``text`` can be a whole page; cleaning cuts it to the snippet length.
    return first_text(item, "summary", "text")


class Exa(Provider):
    name: ClassVar[str] = "exa"
    display_name: ClassVar[str] = "Exa"
    default_base_url: ClassVar[str | None] = "https://api.exa.ai"
    supports_time_range: ClassVar[bool] = True
    max_count: ClassVar[int] = 25
    operators: ClassVar[tuple[str, ...]] = ()

    def build_request(self, query: SearchQuery, endpoint: Endpoint) -> ProviderRequest:
        payload: dict[str, Any] = {
            "query": query.text,
            "numResults": min(query.count, self.max_count),
            "type": "auto",
            "contents": {"highlights": True},
        }
        if query.include_domains:
            payload["includeDomains"] = list(query.include_domains)
        if query.exclude_domains:
            payload["excludeDomains"] = list(query.exclude_domains)
        if query.time_range:
            since = datetime.now(UTC) - timedelta(days=_SPAN[query.time_range])
            payload["startPublishedDate"] = since.strftime("%Y-%m-%dT%H:%M:%S.000Z")
        return ProviderRequest(
            "POST",
            endpoint.url("search"),
            json=payload,
            headers={"Accept": "application/json", "x-api-key": endpoint.api_key or ""},
        )

    def explain_error(self, status: int, body: bytes) -> SearchFailure | None:
        if status == 402:
            said = _said(body)
            return SearchFailure(
                QUOTA_EXCEEDED,
                "exa says this key has no credits left"
                + (f" ({said})" if said else "")
                + "; add credits or raise the key's budget in the Exa dashboard",
            )
        if status in (400, 403):
            said = _said(body)
            return SearchFailure(
                REJECTED,
                f"exa refused the request (HTTP {status})"
                + (f": {said}" if said else "")
                + "; change the query or its filters",
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
                    snippet=_snippet(item),
                )
                for item in data["results"]
                if isinstance(item, dict)
            ]
        )
