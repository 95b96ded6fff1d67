"""Turning what providers send into the plain ``{title, url, snippet}`` results of design §7.

Provider text is untrusted: tags are stripped (script and style bodies dropped), entities
decoded, control characters removed and whitespace folded, so a result can only ever be
plain text. URLs must be http(s) with a host; duplicates and filtered domains are dropped.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from html.parser import HTMLParser
from urllib.parse import urlsplit, urlunsplit

from spyglass.search.domains import host_matches
from spyglass.search.model import RawResult, SearchQuery

SNIPPET_CHARS = 500
#: The longest snippet ``search.snippet_chars`` may ask for.
MAX_SNIPPET_CHARS = 1000
TITLE_CHARS = 300
URL_CHARS = 2048

_TAG_LIKE = re.compile(r"<\s*/?\s*[A-Za-z!?][^>]*>")
_SPACE = re.compile(r"\s+")
_SKIPPED = {"script", "style", "template", "noscript", "iframe", "object", "svg", "math"}


class _TextCollector(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skip_depth = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIPPED:
            self._skip_depth += 1
        elif tag in {"br", "p", "div", "li"}:
            self.parts.append(" ")

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIPPED and self._skip_depth:
            self._skip_depth -= 1

    def handle_data(self, data: str) -> None:
        if not self._skip_depth:
            self.parts.append(data)


def _strip_once(text: str) -> str:
    collector = _TextCollector()
    collector.feed(text)
    collector.close()
    return "".join(collector.parts)


def plain_text(text: str) -> str:
    """``text`` with tags stripped, entities decoded, controls removed, whitespace folded."""
    result = _strip_once(text)
    # Some providers escape their markup once more (``&lt;b&gt;``); after decoding, what looks
    # like a tag is stripped again so no markup survives either way.
    if _TAG_LIKE.search(result):
        result = _strip_once(result)
    result = "".join(
        " " if unicodedata.category(char) in {"Cc", "Cf", "Zl", "Zp"} else char for char in result
    )
    return _SPACE.sub(" ", result).strip()


def shorten(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters, at a word boundary when one is near."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space >= limit // 2:
        cut = cut[:space]
    return cut.rstrip() + "…"


def clean_url(url: str) -> str | None:
    """The URL when it is absolute http(s) with a host and no credentials, else ``None``."""
    if not isinstance(url, str):
        return None
    # Some engines hand back the query unencoded inside the URL: spaces are encoded, any
    # other whitespace or control character makes the URL unusable.
    url = url.strip().replace(" ", "%20")
    if not url or len(url) > URL_CHARS or any(ch.isspace() or ord(ch) < 32 for ch in url):
        return None
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError:
        return None
    if parts.scheme.lower() not in {"http", "https"} or not host or "%" in host:
        return None
    if parts.username is not None or parts.password is not None:
        return None
    return url


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
