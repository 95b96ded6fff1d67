"""Tavily search API (Bearer key). Plan limits are HTTP 432 and 433."""

from __future__ import annotations

from typing import Any, ClassVar

from spyglass.providers.explain import explain
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
)


def _detail(body: bytes) -> str:
    # ``detail.error``, a plain ``detail``, or FastAPI's list of ``{"msg": ...}`` entries.
    return explain(body)


class Tavily(Provider):
    name: ClassVar[str] = "tavily"
    display_name: ClassVar[str] = "Tavily"
    default_base_url: ClassVar[str | None] = "https://api.tavily.com"
    supports_time_range: ClassVar[bool] = True
    max_count: ClassVar[int] = 20
    operators: ClassVar[tuple[str, ...]] = ()

    def build_request(self, query: SearchQuery, endpoint: Endpoint) -> ProviderRequest:
        payload: dict[str, Any] = {
            "query": query.text,
            "max_results": min(query.count, self.max_count),
            "search_depth": "basic",
            "topic": "general",
        }
        if query.time_range:
            payload["time_range"] = query.time_range
        if query.include_domains:
            payload["include_domains"] = list(query.include_domains)
        if query.exclude_domains:
            payload["exclude_domains"] = list(query.exclude_domains)
        return ProviderRequest(
            "POST",
            endpoint.url("search"),
            json=payload,
            headers={
                "Accept": "application/json",
                "Authorization": f"Bearer {endpoint.api_key or ''}",
            },
        )

    def explain_error(self, status: int, body: bytes) -> SearchFailure | None:
        failure = self._failure(status, body)
        if failure is None:
            return None
        # Tavily explains every error; its words (bounded, plain text) follow the message.
        said = _detail(body)
        if said and said not in failure.message:
            return SearchFailure(
                failure.code,
                f'{failure.message} (tavily said: "{said}")',
                retryable=failure.retryable,
            )
        return failure

    def _failure(self, status: int, body: bytes) -> SearchFailure | None:
        if 200 <= status < 300:
            return None
        if status in (432, 433):
            which = "plan" if status == 432 else "pay-as-you-go"
            return SearchFailure(
                QUOTA_EXCEEDED,
                f"tavily says this key is over its {which} usage limit (HTTP {status}); "
                "upgrade the plan or raise the limit in the Tavily dashboard",
            )
        if status == 400:
            return SearchFailure(
                REJECTED,
                "tavily refused the search parameters (HTTP 400); change the query or its filters",
            )
        return self.status_failure(status)

    def parse(self, body: bytes, query: SearchQuery) -> ParsedPage:
        data = self.load_json(body)
        if not isinstance(data, dict) or not isinstance(data.get("results"), list):
            raise self.invalid("a results list")
        return ParsedPage(
            [
                RawResult(
                    title=first_text(item, "title"),
                    url=first_text(item, "url"),
                    snippet=first_text(item, "content"),
                )
                for item in data["results"]
                if isinstance(item, dict)
            ]
        )
