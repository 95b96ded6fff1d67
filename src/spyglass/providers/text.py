"""What a provider sends, made safe to pass on: plain text, and addresses that are usable.

Provider text is untrusted: entities are decoded to a fixed point, then tags stripped (script
and style bodies dropped), control characters removed and whitespace folded, so what comes out
can only ever be plain text; the untrusted envelope's tag cannot appear in it in any spelling.
An address a provider hands back is kept only when it is absolute http(s) with a host and no
credentials. Search results and hosted readers' pages both pass through here.
"""

from __future__ import annotations

import html
import re
import unicodedata
from html.parser import HTMLParser
from urllib.parse import urlsplit

from spyglass.untrusted.envelope import neutralise

URL_CHARS = 2048

#: Entity layers decoded at most; each layer makes the text shorter, so this is generous.
_MAX_LAYERS = 10
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


def _decoded(text: str) -> str:
    # Providers escape markup once, twice, or more (``&amp;lt;b&amp;gt;``): decode until
    # nothing changes, so no later reader can decode a tag back into existence.
    for _ in range(_MAX_LAYERS):
        decoded = html.unescape(text)
        if decoded == text:
            break
        text = decoded
    return text


def _plain(text: str) -> str:
    # Decode, then strip, until neither changes anything: removing a tag can join the
    # pieces of an entity (``&am<b></b>p;lt;``) or of another tag.
    for _ in range(_MAX_LAYERS):
        result = _strip_once(_decoded(text))
        if result == text:
            break
        text = result
    return text


def plain_text(text: str) -> str:
    """``text`` with entities decoded to a fixed point, then tags stripped, controls removed,
    whitespace folded, and the untrusted envelope's tag name replaced in any spelling."""
    result = _plain(text)
    # Before control characters become spaces, so zero-width tricks are still recognised.
    result = neutralise(result)
    result = "".join(
        " " if unicodedata.category(char) in {"Cc", "Cf", "Zl", "Zp"} else char for char in result
    )
    return neutralise(_SPACE.sub(" ", result).strip())


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
