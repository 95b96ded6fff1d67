"""DuckDuckGo's no-JavaScript HTML endpoint: no key and no server needed.

Result links may be wrapped as ``/l/?uddg=<encoded>``; they are unwrapped exactly once. Ads
are skipped. A challenge page or a 202 is DuckDuckGo rate-limiting this address, which is
reported as ``SEARCH_RATE_LIMITED``, never as an empty result.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar
from urllib.parse import parse_qs, urlsplit

from spyglass.search.model import RATE_LIMITED, ParsedPage, RawResult, SearchFailure, SearchQuery
from spyglass.search.provider import Endpoint, Provider, ProviderRequest, site_terms

_DF = {"day": "d", "week": "w", "month": "m", "year": "y"}
_DDG_HOSTS = {"", "duckduckgo.com", "html.duckduckgo.com", "lite.duckduckgo.com"}
#: Statuses DuckDuckGo uses when it throttles or blocks an address.
_THROTTLED = {202, 301, 303, 403, 418, 429}
_RESULT = "contains(concat(' ', normalize-space(@class), ' '), ' result ')"


def _rate_limited(detail: str) -> SearchFailure:
    return SearchFailure(
        RATE_LIMITED,
        f"duckduckgo is rate-limiting searches from this address ({detail}); wait a few "
        "minutes, or set search.providers to another provider such as a private searxng",
        retryable=True,
    )


def unwrap(href: str) -> str:
    """The target of a DuckDuckGo ``/l/?uddg=`` redirect link, decoded once; else ``href``."""
    link = "https:" + href if href.startswith("//") else href
    try:
        parts = urlsplit(link)
    except ValueError:
        return href
    if (parts.hostname or "") in _DDG_HOSTS and parts.path.startswith("/l/"):
        targets = parse_qs(parts.query).get("uddg")
        if targets:
            return targets[0]
    return link


if TYPE_CHECKING:
    from lxml import etree


def _is_ad(node: etree._Element, href: str) -> bool:
    classes = (node.get("class") or "").split()
    if "result--ad" in classes:
        return True
    parts = urlsplit(href if not href.startswith("//") else "https:" + href)
    return (parts.hostname or "").endswith("duckduckgo.com") and parts.path.startswith("/y.js")


def _markup(node: etree._Element) -> str:
    import lxml.html

    return str(lxml.html.tostring(node, encoding="unicode", with_tail=False))


class DuckDuckGo(Provider):
    name: ClassVar[str] = "duckduckgo"
    display_name: ClassVar[str] = "DuckDuckGo"
    default_base_url: ClassVar[str | None] = "https://html.duckduckgo.com"
    needs_key: ClassVar[bool] = False
    supports_time_range: ClassVar[bool] = True
    max_count: ClassVar[int] = 10
    operators: ClassVar[tuple[str, ...]] = (
        "site:",
        '"exact phrase"',
        "-term",
        "filetype:",
        "intitle:",
    )

    def build_request(self, query: SearchQuery, endpoint: Endpoint) -> ProviderRequest:
        # DuckDuckGo refuses queries over 499 characters.
        form = {"q": site_terms(query)[:499], "b": "", "kl": "wt-wt"}
        if query.time_range:
            form["df"] = _DF[query.time_range]
        return ProviderRequest(
            "POST",
            endpoint.url("html/"),
            form=form,
            headers={
                "Accept": "text/html,application/xhtml+xml",
                "Accept-Language": "en-US,en;q=0.8",
                "Referer": endpoint.url("/"),
                "Sec-Fetch-Dest": "document",
                "Sec-Fetch-Mode": "navigate",
                "Sec-Fetch-Site": "same-origin",
                "Sec-Fetch-User": "?1",
            },
        )

    def explain_error(self, status: int, body: bytes) -> SearchFailure | None:
        if status in _THROTTLED:
            return _rate_limited(f"HTTP {status}")
        return None

    def parse(self, body: bytes, query: SearchQuery) -> ParsedPage:
        # lxml loads with the first DuckDuckGo answer, not whenever the providers are listed.
        import lxml.html
        from lxml import etree

        if not body.strip():
            raise self.invalid("a result page")
        try:
            document = lxml.html.document_fromstring(body)
        except (etree.ParserError, ValueError):
            raise self.invalid("a readable result page") from None
        if document.xpath("//form[@id='challenge-form']") or document.xpath(
            "//*[contains(@class, 'anomaly-modal')]"
        ):
            raise _rate_limited("a challenge page instead of results")
        results: list[RawResult] = []
        for node in document.xpath(f"//div[{_RESULT}]"):
            anchors = node.xpath(".//a[contains(@class, 'result__a')]") or node.xpath(".//h2//a")
            if not anchors:
                continue
            href = anchors[0].get("href") or ""
            if _is_ad(node, href):
                continue
            snippets = node.xpath(".//*[contains(@class, 'result__snippet')]")
            results.append(
                RawResult(
                    # Markup is kept for the shared cleaning, which also drops script bodies.
                    title=_markup(anchors[0]),
                    url=unwrap(href),
                    snippet=_markup(snippets[0]) if snippets else "",
                )
            )
        if results:
            return ParsedPage(results)
        if document.xpath("//*[contains(@class, 'no-results')]") or document.xpath(
            "//div[@id='links']"
        ):
            return ParsedPage([])
        if "No  results." in document.text_content() or "No results." in document.text_content():
            return ParsedPage([])
        raise self.invalid("a result list (the page did not look like DuckDuckGo results)")
