"""Brave Search API (``X-Subscription-Token``).

Brave reports a bad key as HTTP 422 with code ``SUBSCRIPTION_TOKEN_INVALID`` and both rate
and monthly quota limits as 429, so failures are told apart by the error code, not the status.
"""

from __future__ import annotations

from typing import Any, ClassVar

from spyglass.providers.explain import explanation
from spyglass.search.model import (
    AUTH_FAILED,
    QUOTA_EXCEEDED,
    RATE_LIMITED,
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

_FRESHNESS = {"day": "pd", "week": "pw", "month": "pm", "year": "py"}


def _error(data: Any) -> dict[str, Any]:
    # Real responses carry ``error: {...}``; the API reference shows ``errors: [...]``.
    if not isinstance(data, dict):
        return {}
    error = data.get("error")
    if isinstance(error, dict):
        return error
    errors = data.get("errors")
    if isinstance(errors, list) and errors and isinstance(errors[0], dict):
        return errors[0]
    return {}


def _about_token(error: dict[str, Any]) -> bool:
    meta = error.get("meta")
    if not isinstance(meta, dict):
        return False
    if meta.get("component") == "authentication":
        return True
    for item in meta.get("errors") or []:
        location = item.get("loc") if isinstance(item, dict) else None
        if isinstance(location, list) and "x-subscription-token" in [
            str(part).lower() for part in location
        ]:
            return True
    return False


class Brave(Provider):
    name: ClassVar[str] = "brave"
    display_name: ClassVar[str] = "Brave Search"
    default_base_url: ClassVar[str | None] = "https://api.search.brave.com"
    supports_time_range: ClassVar[bool] = True
    max_count: ClassVar[int] = 20
    operators: ClassVar[tuple[str, ...]] = (
        "site:",
        '"exact phrase"',
        "-term",
        "filetype:",
        "intitle:",
        "inbody:",
        "lang:",
    )

    def build_request(self, query: SearchQuery, endpoint: Endpoint) -> ProviderRequest:
        params = {
            "q": site_terms(query),
            "count": str(min(query.count, self.max_count)),
            "text_decorations": "false",
            "safesearch": "moderate",
        }
        if query.time_range:
            params["freshness"] = _FRESHNESS[query.time_range]
        return ProviderRequest(
            "GET",
            endpoint.url("res/v1/web/search"),
            params=params,
            headers={
                "Accept": "application/json",
                "Accept-Encoding": "gzip",
                "X-Subscription-Token": endpoint.api_key or "",
            },
        )

    def explain_error(self, status: int, body: bytes) -> SearchFailure | None:
        if status < 400:
            return None
        error = _error(json_or_none(body))
        code = error.get("code")
        said = explanation(error.get("detail"))
        if code == "SUBSCRIPTION_TOKEN_INVALID" or (code == "VALIDATION" and _about_token(error)):
            return SearchFailure(
                AUTH_FAILED,
                f"brave refused the API key (HTTP {status}, {code}); check search.brave.api_key "
                "or SPYGLASS_SEARCH__BRAVE__API_KEY",
            )
        if code == "QUOTA_LIMITED":
            return SearchFailure(
                QUOTA_EXCEEDED,
                "brave says this key has used its monthly quota (QUOTA_LIMITED); raise the plan "
                "or wait for the next month",
            )
        if code == "RATE_LIMITED":
            return SearchFailure(
                RATE_LIMITED,
                "brave is rate-limiting this key (RATE_LIMITED: too many requests per second); "
                "try again in a moment",
                retryable=True,
            )
        if code == "SUBSCRIPTION_NOT_FOUND":
            return SearchFailure(
                AUTH_FAILED,
                "brave knows this key but it has no search subscription "
                "(SUBSCRIPTION_NOT_FOUND); subscribe to a plan in the Brave API dashboard",
            )
        if code == "VALIDATION":
            return SearchFailure(
                REJECTED,
                "brave refused the search parameters (VALIDATION)"
                + (f": {said}" if said else "")
                + "; shorten the query or drop its filters",
            )
        return None

    def parse(self, body: bytes, query: SearchQuery) -> ParsedPage:
        data = self.load_json(body)
        if not isinstance(data, dict):
            raise self.invalid("a JSON object")
        web = data.get("web")
        if web is None:
            # Brave leaves out the web section when nothing matched.
            if data.get("type") == "search":
                return ParsedPage([])
            raise self.invalid("a web section")
        if not isinstance(web, dict) or not isinstance(web.get("results"), list):
            raise self.invalid("web.results")
        return ParsedPage(
            [
                RawResult(
                    title=first_text(item, "title"),
                    url=first_text(item, "url"),
                    snippet=first_text(item, "description"),
                )
                for item in web["results"]
                if isinstance(item, dict)
            ]
        )
