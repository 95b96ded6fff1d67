"""Decoded forms of an outgoing string, each with a map back to the characters really sent.

A model that copies private text into a URL rarely leaves it readable: it is percent- or
plus-encoded, or wrapped in base64 or hex. The check reads every such form, and a finding in a
decoded form is reported (and highlighted) on the span of the original that encodes it.
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass

#: Base64 (standard or URL-safe) and hex runs worth decoding: shorter ones carry too little.
_BASE64 = re.compile(r"[A-Za-z0-9+/_-]{16,}={0,2}")
_HEX = re.compile(r"(?:[0-9a-fA-F]{2}){8,}")
_PERCENT = re.compile(r"(?:%[0-9a-fA-F]{2})+")
MAX_DEPTH = 2


@dataclass(frozen=True)
class View:
    """A text and, for each of its characters, the span ``[start, end)`` of the original."""

    text: str
    origin: tuple[tuple[int, int], ...]

    @classmethod
    def of(cls, text: str) -> View:
        return cls(text, tuple((i, i + 1) for i in range(len(text))))

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The span of the original string behind ``text[start:end]``."""
        last = len(self.origin) - 1
        first = min(max(start, 0), last)
        return self.origin[first][0], self.origin[min(max(first, end - 1), last)][1]

    def slice(self, start: int, end: int) -> View:
        return View(self.text[start:end], self.origin[start:end])


def percent_decoded(view: View, *, plus_as_space: bool) -> View:
    """``%xx`` sequences decoded as UTF-8 and, in a query string, ``+`` read as a space."""
    text, origin = view.text, view.origin
    out: list[str] = []
    spans: list[tuple[int, int]] = []
    position = 0
    for match in _PERCENT.finditer(text):
        _copy(text, origin, position, match.start(), out, spans, plus_as_space)
        raw = bytes.fromhex(match.group().replace("%", ""))
        decoded = raw.decode("utf-8", errors="replace")
        whole = (origin[match.start()][0], origin[match.end() - 1][1])
        # Single-byte characters map back exactly; a multi-byte one maps to the whole run.
        if len(decoded) * 3 == len(match.group()):
            for index, char in enumerate(decoded):
                first = match.start() + index * 3
                out.append(char)
                spans.append((origin[first][0], origin[first + 2][1]))
        else:
            out.extend(decoded)
            spans.extend([whole] * len(decoded))
        position = match.end()
    _copy(text, origin, position, len(text), out, spans, plus_as_space)
    return View("".join(out), tuple(spans))


def _copy(
    text: str,
    origin: tuple[tuple[int, int], ...],
    start: int,
    end: int,
    out: list[str],
    spans: list[tuple[int, int]],
    plus_as_space: bool,
) -> None:
    for index in range(start, end):
        char = text[index]
        out.append(" " if plus_as_space and char == "+" else char)
        spans.append(origin[index])


def embedded(view: View) -> list[View]:
    """Readable text hidden in base64 or hex runs of ``view``, each mapped to its whole run."""
    found: list[View] = []
    for pattern, decode in ((_BASE64, _from_base64), (_HEX, _from_hex)):
        for match in pattern.finditer(view.text):
            text = decode(match.group())
            if text is None:
                continue
            span = view.span(match.start(), match.end())
            found.append(View(text, (span,) * len(text)))
    return found


def _from_base64(token: str) -> str | None:
    body = token.rstrip("=")
    padded = body + "=" * (-len(body) % 4)
    alphabet = "-_" if ("-" in body or "_" in body) else "+/"
    try:
        raw = base64.b64decode(padded, altchars=alphabet.encode(), validate=True)
    except (binascii.Error, ValueError):
        return None
    return _readable(raw)


def _from_hex(token: str) -> str | None:
    try:
        return _readable(bytes.fromhex(token))
    except ValueError:
        return None


def _readable(raw: bytes) -> str | None:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if len(text) < 6:
        return None
    printable = sum(ch.isprintable() or ch in "\n\t\r" for ch in text)
    return text if printable / len(text) >= 0.95 else None


def url_views(url: str) -> list[View]:
    """Every form of ``url`` worth reading: as sent, percent-decoded (twice, for double
    encoding), with ``+`` as a space in the query, and whatever base64/hex runs decode to.
    The fragment is left out: it is never sent."""
    sent = View.of(url.split("#", 1)[0])
    query_at = sent.text.find("?")
    views = [sent]
    decoded = sent
    for _ in range(MAX_DEPTH):
        if "%" not in decoded.text and "+" not in decoded.text:
            break
        if query_at >= 0 and decoded is sent:
            head = percent_decoded(sent.slice(0, query_at), plus_as_space=False)
            tail = percent_decoded(sent.slice(query_at, len(sent.text)), plus_as_space=True)
            decoded = View(head.text + tail.text, head.origin + tail.origin)
        else:
            decoded = percent_decoded(decoded, plus_as_space=False)
        views.append(decoded)
    return _with_embedded(views)


def text_views(text: str) -> list[View]:
    """A search query as written, and whatever base64/hex runs in it decode to."""
    return _with_embedded([View.of(text)])


def _with_embedded(views: list[View]) -> list[View]:
    extra: list[View] = []
    for view in views:
        for inner in embedded(view):
            extra.append(inner)
            if "%" in inner.text or "+" in inner.text:
                extra.append(percent_decoded(inner, plus_as_space=True))
    return views + extra
