"""Turning what providers send into the plain ``{title, url, snippet}`` results of docs/search.md.

Titles and snippets become plain text and URLs must be http(s) with a host (both by
:mod:`spyglass.providers.text`); duplicates and filtered domains are dropped, and text is cut
to its bound at a word.
"""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import urlsplit, urlunsplit

from spyglass.providers.text import clean_url, plain_text
from spyglass.search.domains import host_matches
from spyglass.search.model import RawResult, SearchQuery

SNIPPET_CHARS = 500
TITLE_CHARS = 300


def shorten(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters, at a word boundary when one is near."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space >= limit // 2:
        cut = cut[:space]
    return cut.rstrip() + "…"


def _dedupe_key(url: str) -> str:
    parts = urlsplit(url)
    host = (parts.hostname or "").rstrip(".")
    port = f":{parts.port}" if parts.port else ""
    path = parts.path.rstrip("/") or "/"
    # The scheme is ignored, as SearXNG does when it merges results.
    return urlunsplit(("", host + port, path, parts.query, ""))


def _allowed(url: str, query: SearchQuery) -> bool:
    host = (urlsplit(url).hostname or "").rstrip(".")
    if query.include_domains and not any(host_matches(host, d) for d in query.include_domains):
        return False
    return not any(host_matches(host, d) for d in query.exclude_domains)


def clean_results(
    raw: Iterable[RawResult], query: SearchQuery, *, snippet_chars: int = SNIPPET_CHARS
) -> list[dict[str, str]]:
    """At most ``query.count`` clean, unique, domain-filtered results, in the provider's order.

    Snippets are cut to ``snippet_chars`` (the owner's ``search.snippet_chars``).
    """
    seen: set[str] = set()
    results: list[dict[str, str]] = []
    for item in raw:
        url = clean_url(item.url) if isinstance(item.url, str) else None
        if url is None or not _allowed(url, query):
            continue
        key = _dedupe_key(url)
        if key in seen:
            continue
        seen.add(key)
        title = shorten(plain_text(item.title or ""), TITLE_CHARS) or url[:TITLE_CHARS]
        snippet = shorten(plain_text(item.snippet or ""), snippet_chars)
        results.append({"title": title, "url": url, "snippet": snippet})
        if len(results) >= query.count:
            break
    return results
