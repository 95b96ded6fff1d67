"""SearXNG, self-hosted: the JSON API of an instance whose address the owner sets.

Its pitfalls are turned into answers: JSON output is off by default (403 with an HTML page),
the limiter answers 429, and a 200 with zero results may mean every upstream engine failed
(listed in ``unresponsive_engines``), which is not "nothing found".
"""

from __future__ import annotations

from typing import Any, ClassVar

from spyglass.providers.explain import explanation
from spyglass.search.model import (
    RATE_LIMITED,
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

#: Engine failure reasons (English, hence ``locale=en``) that mean "blocked", not "down".
_BLOCKED_REASONS = {"too many requests", "captcha", "access denied"}


class SearXNG(Provider):
    name: ClassVar[str] = "searxng"
    display_name: ClassVar[str] = "SearXNG"
    default_base_url: ClassVar[str | None] = None
    needs_key: ClassVar[bool] = False
    supports_time_range: ClassVar[bool] = True
    max_count: ClassVar[int] = 20
    operators: ClassVar[tuple[str, ...]] = ("site:", '"exact phrase"', "-term")

    def build_request(self, query: SearchQuery, endpoint: Endpoint) -> ProviderRequest:
        params = {"q": site_terms(query), "format": "json", "locale": "en", "pageno": "1"}
        if query.time_range:
            params["time_range"] = query.time_range
        return ProviderRequest(
            "GET",
            endpoint.url("search"),
            params=params,
            # The limiter refuses requests that do not look like a browser's.
            headers={
                "Accept": "application/json, text/html;q=0.9, */*;q=0.8",
                "Accept-Encoding": "gzip, deflate",
                "Accept-Language": "en-US,en;q=0.8",
            },
        )

    def explain_error(self, status: int, body: bytes) -> SearchFailure | None:
        if status == 403 and not isinstance(json_or_none(body), dict):
            return SearchFailure(
                REJECTED,
                "searxng refused to answer in JSON (HTTP 403): its JSON output is off. Add "
                "json to search.formats in its settings.yml (formats: [html, json]) and "
                "restart it",
            )
        if status == 429:
            return SearchFailure(
                RATE_LIMITED,
                "searxng's limiter refused this search (HTTP 429). On your own instance set "
                "server.limiter: false in settings.yml, or add this machine's address to "
                "pass_ip in limiter.toml",
                retryable=True,
            )
        if status == 400:
            data = json_or_none(body)
            said = explanation(data.get("error")) if isinstance(data, dict) else ""
            return SearchFailure(
                REJECTED,
                "searxng refused the search parameters (HTTP 400)"
                + (f": {said}" if said else "")
                + "; change the query or its filters",
            )
        return None

    def parse(self, body: bytes, query: SearchQuery) -> ParsedPage:
        data = self.load_json(body)
        if not isinstance(data, dict) or not isinstance(data.get("results"), list):
            raise self.invalid("a results list")
        results = [
            RawResult(
                title=first_text(item, "title"),
                url=first_text(item, "url"),
                snippet=first_text(item, "content"),
            )
            for item in data["results"]
            if isinstance(item, dict)
        ]
        failed = _unresponsive(data.get("unresponsive_engines"))
        if failed and not results:
            raise _all_engines_failed(failed)
        page = ParsedPage(results)
        if failed:
            page.partial = True
            page.notes.append(
                explanation("searxng engines that did not answer: " + _describe(failed))
            )
        elif not results and query.time_range:
            page.notes.append(
                "searxng skips engines that cannot filter by date; try again without "
                "time_range if you expected results"
            )
        return page


def _unresponsive(value: Any) -> list[tuple[str, str]]:
    pairs: list[tuple[str, str]] = []
    if not isinstance(value, list):
        return pairs
    for entry in value:
        if isinstance(entry, list | tuple) and len(entry) == 2:
            engine, reason = entry
            if isinstance(engine, str) and isinstance(reason, str):
                pairs.append((engine, reason))
    return pairs


def _reason(text: str) -> str:
    return text.removeprefix("Suspended: ").strip().lower()


def _describe(failed: list[tuple[str, str]]) -> str:
    return ", ".join(f"{engine} ({_reason(reason)})" for engine, reason in failed)


def _all_engines_failed(failed: list[tuple[str, str]]) -> SearchFailure:
    engines = explanation(_describe(failed))
    if all(_reason(reason) in _BLOCKED_REASONS for _, reason in failed):
        return SearchFailure(
            RATE_LIMITED,
            f"searxng found nothing because every engine was blocked upstream: {engines}. "
            "Wait a while, or enable engines that are not blocked in its settings.yml",
            retryable=True,
        )
    return SearchFailure(
        UNAVAILABLE,
        f"searxng found nothing because every engine failed: {engines}. Try again later or "
        "check the engines in its settings.yml",
        retryable=True,
    )
