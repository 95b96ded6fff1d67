"""Decoded forms of an outgoing string, each with a map back to the characters really sent.

A model that copies private text into a URL rarely leaves it readable: it is percent- or
plus-encoded, written in look-alike characters (full-width letters, Arabic-Indic digits,
zero-width characters between them), or wrapped in base64 or hex — perhaps shifted by a
character, split over path segments, or run on from the text around it. The check reads
every such form, and a finding in a decoded form is reported (and highlighted) on the span of
the original that encodes it.
"""

from __future__ import annotations

import base64
import binascii
import re
import unicodedata
from bisect import bisect_left
from dataclasses import dataclass

_PERCENT = re.compile(r"(?:%[0-9a-fA-F]{2})+")
MAX_DEPTH = 2
#: Default-ignorable code points that are not format characters (category Cf, dropped as a
#: class): combining grapheme joiner, Hangul fillers, Khmer inherent vowels, Mongolian
#: variation selectors, variation selectors. They render as nothing.
_IGNORABLES = (
    "\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u3164\ufe00-\ufe0f\uffa0\U000e0100-\U000e01ef"
)
_IGNORABLE = re.compile(f"[{_IGNORABLES}]")
#: An ignorable code point or a decimal digit of another script than ASCII's.
_IGNORABLE_OR_DIGIT = re.compile(f"[{_IGNORABLES}]|(?![0-9])\\d")
#: What is not a character of either base64 alphabet (standard ``+/``, URL-safe ``-_``,
#: read as one), with ``/`` in it and without it (read as a separator).
_NOT_BASE64 = re.compile(r"[^A-Za-z0-9+/_-]+")
_NOT_BASE64_NOR_SLASH = re.compile(r"[^A-Za-z0-9+_-]+")
#: What is not in a query parameter's value: a run split over several parameters is read
#: from their values alone.
_NOT_A_VALUE = re.compile(r"^[^?]*\?[^=&;]*=?|[&;][^=&;]*=?|[^A-Za-z0-9+/_-]+")
#: A query string of two parameters or more.
_PARAMETERS = re.compile(r"\?[^#]*=[^#]*[&;][^#]*=")
_TO_STANDARD = str.maketrans("-_", "+/")
_NOT_ALNUM = re.compile(r"[^A-Za-z0-9]+")
_HEX_RUN = re.compile(r"[0-9a-fA-F]{16,}")
#: Decoded runs shorter than this carry too little to be worth checking.
MIN_READABLE = 8
#: How many decoded characters at the start and end of a run may be junk: characters put
#: next to an encoded run to shift it decode to up to two characters next to the text,
#: which can hide where it starts or ends ("x4111…" is no card number).
_JUNK = [(head, tail) for head in range(3) for tail in range(3)]
#: Bounds on what one string decodes to, so that a long one cannot make the check slow: the
#: decoded forms kept, and the characters read from each piece's start (more than any
#: shape a detector looks for; copied words are read in the whole run).
MAX_VIEWS = 64
MAX_PIECE = 128
#: The characters read again next to an edge without its junk: more than any shape with an
#: edge a detector looks for (an email address, a card number, a token) usually takes.
_EDGE = 96
#: The fewest base64 characters that decode to :data:`MIN_READABLE` bytes.
_MIN_BASE64 = MIN_READABLE * 4 // 3
#: A run of decoded characters none of which is a control character or an undecodable byte
#: (``surrogateescape`` turns each such byte into one of U+DC80..U+DCFF).
_READABLE = re.compile(rf"[^\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\udc80-\udcff]{{{MIN_READABLE},}}")


@dataclass(frozen=True)
class View:
    """A text and, for each of its characters, the span ``[start, end)`` of the original."""

    text: str
    origin: tuple[tuple[int, int], ...]

    @classmethod
    def of(cls, text: str) -> View:
        return cls(text, tuple(zip(range(len(text)), range(1, len(text) + 1), strict=True)))

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The span of the original string behind ``text[start:end]``."""
        if not self.origin:
            return 0, 0
        last = len(self.origin) - 1
        first = min(max(start, 0), last)
        return self.origin[first][0], self.origin[min(max(first, end - 1), last)][1]

    def slice(self, start: int, end: int) -> View:
        return View(self.text[start:end], self.origin[start:end])


def normalised(view: View) -> View:
    """``view`` in NFKC (full-width and other compatibility forms to their plain letters, so
    ``ｊａｎｅ＠ｅｘａｍｐｌｅ．ｃｏｍ`` reads as an email address), every decimal digit of any
    script written ``0``-``9``, and format characters (zero-width, bidi controls, soft
    hyphen) and other invisible code points left out. ASCII text is returned as it is."""
    text = view.text
    if text.isascii() or (
        # Format characters are not printable; the rest is found by the pattern.
        text.isprintable()
        and unicodedata.is_normalized("NFKC", text)
        and not _IGNORABLE_OR_DIGIT.search(text)
    ):
        return view
    out: list[str] = []
    spans: list[tuple[int, int]] = []
    for char, span in zip(text, view.origin, strict=True):
        if char.isascii():
            out.append(char)
            spans.append(span)
            continue
        if unicodedata.category(char) == "Cf" or _IGNORABLE.match(char):
            continue
        for piece in unicodedata.normalize("NFKC", char):
            digit = unicodedata.decimal(piece, None)
            out.append(piece if digit is None else str(digit))
            spans.append(span)
    return View("".join(out), tuple(spans))


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


def embedded(view: View, limit: int = MAX_VIEWS) -> list[View]:
    """Readable text hidden in base64 or hex in ``view``, each character mapped to the
    characters that encode it; at most ``limit`` forms.

    The encoded run is not trusted to stand alone: a URL's delimiters are dropped (so a run
    split over path segments, or next to ``?d=``, is read whole), ``/`` is read both as a
    base64 character and as a separator, a query string is also read as its parameters'
    values alone (a run split over ``?a=…&b=…``), and every alignment is tried (base64 from
    each of its first four characters, hex from each of its first two), so a character put
    before the run does not hide it. What is kept is each run of at least
    :data:`MIN_READABLE` readable characters in what decodes, and its pieces
    (:func:`_readable_runs`), as they decode before any of them without junk at its edges.
    """
    runs: list[_Run] = []
    text = view.text
    for dropped in (_NOT_BASE64, _NOT_BASE64_NOR_SLASH, _NOT_A_VALUE):
        if (dropped is _NOT_BASE64_NOR_SLASH and "/" not in text) or (
            dropped is _NOT_A_VALUE and not _PARAMETERS.search(text)
        ):
            continue
        chars = dropped.sub("", text).translate(_TO_STANDARD).encode()
        if len(chars) < _MIN_BASE64:
            continue
        for offset in range(4):
            body = chars[offset:]
            usable = len(body) - (len(body) % 4 == 1)
            raw = binascii.a2b_base64(body[:usable] + b"=" * (-usable % 4))
            if _READABLE.search(raw.decode("utf-8", errors="surrogateescape")):
                spans, pieces = _kept(view, dropped, offset, len(view.text))
                runs += _readable_runs(raw, spans, pieces, 4, 3)
    letters = _NOT_ALNUM.sub("", text)
    for run in _HEX_RUN.finditer(letters):
        for offset in range(2):
            digits = run.group()[offset:]
            raw = bytes.fromhex(digits[: len(digits) // 2 * 2])
            if _READABLE.search(raw.decode("utf-8", errors="surrogateescape")):
                spans, pieces = _kept(view, _NOT_ALNUM, run.start() + offset, run.end())
                runs += _readable_runs(raw, spans, pieces, 2, 1)
    found: dict[tuple[str, tuple[int, int]], View] = {}
    # Every piece as it decodes before any without its junk, in case the bound is reached.
    for head, tail in _JUNK:
        for decoded, origin, ranges in runs:
            for first, stop in ranges:
                start, end = first + head, stop - tail
                if head and tail and end - start > _EDGE:
                    continue
                # Junk matters at the edge it is on: only that edge is read again.
                if head and not tail:
                    end = min(end, start + _EDGE)
                elif tail and not head:
                    start = max(start, end - _EDGE)
                if end - start < MIN_READABLE:
                    continue
                if len(found) >= limit:
                    return list(found.values())
                inner = View(decoded[start:end], origin[start:end])
                found.setdefault((inner.text, inner.span(0, len(inner.text))), inner)
    return list(found.values())


#: A readable run of decoded text, its origin, and the ranges of it to read on their own.
_Run = tuple[str, tuple[tuple[int, int], ...], list[tuple[int, int]]]


def _kept(
    view: View, dropped: re.Pattern[str], start: int, end: int
) -> tuple[list[tuple[int, int]], list[int]]:
    """The spans of characters ``start`` to ``end`` of those in ``view`` that ``dropped``
    leaves, and which of them start a piece (come after a dropped character)."""
    gone = {at for match in dropped.finditer(view.text) for at in range(*match.span())}
    kept = [at for at in range(len(view.text)) if at not in gone][start:end]
    pieces = [at for at in range(1, len(kept)) if kept[at] != kept[at - 1] + 1]
    return [view.origin[i] for i in kept], pieces


def _readable_runs(
    raw: bytes,
    spans: list[tuple[int, int]],
    pieces: list[int],
    chars_per_group: int,
    bytes_per_group: int,
) -> list[_Run]:
    """Each readable run of ``raw``, mapped through ``spans`` (the spans of the encoded
    characters, ``chars_per_group`` of them for each ``bytes_per_group`` bytes).

    What decodes from the characters before a piece (a path segment, a parameter's value)
    runs on into what the piece decodes to, and can hide where it starts or ends ("xjane@…"
    is no email address), so the run is also read from the first character of each piece
    on, and each piece alone (for up to :data:`MAX_PIECE` characters).
    """
    if len(raw) < MIN_READABLE:
        return []
    text = raw.decode("utf-8", errors="surrogateescape")
    # The encoded character at which each decoded character starts and ends.
    firsts: list[int] = []
    finals: list[int] = []
    position = 0
    last = len(spans) - 1
    for char in text:
        firsts.append(min(position * chars_per_group // bytes_per_group, last))
        position += 1 if "\udc80" <= char <= "\udcff" else len(char.encode())
        finals.append(min((position * chars_per_group - 1) // bytes_per_group, last))
    runs: list[_Run] = []
    for run in _READABLE.finditer(text):
        start, end = run.span()
        origin = tuple(
            (spans[firsts[index]][0], spans[finals[index]][1]) for index in range(start, end)
        )
        inside = pieces[bisect_left(pieces, firsts[start]) : bisect_left(pieces, finals[end - 1])]
        cuts = sorted({bisect_left(firsts, piece, start, end) - start for piece in inside} - {0})
        size = end - start
        ranges = [(0, size)]
        ranges += [(at, min(size, at + MAX_PIECE)) for at in cuts]
        ranges += [
            (at, min(stop, at + MAX_PIECE))
            for at, stop in zip([0, *cuts], [*cuts, size], strict=True)
        ]
        runs.append((run.group(), origin, list(dict.fromkeys(ranges))))
    return runs


def decodes_to_text(token: str) -> bool:
    """Whether ``token`` as a whole is base64 or hex of readable text: its content is then
    checked, not its randomness."""
    return _from_base64(token) is not None or _from_hex(token) is not None


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
    """Every form of ``url`` worth reading: normalised (:func:`normalised`), percent-decoded
    (twice, for double encoding), with ``+`` as a space in the query, and whatever base64/hex
    in any of them decodes to. The fragment is left out: it is never sent."""
    sent = normalised(View.of(url.split("#", 1)[0]))
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
        decoded = normalised(decoded)
        views.append(decoded)
    return _with_embedded(views)


def text_views(text: str) -> list[View]:
    """A search query normalised (:func:`normalised`), and whatever base64/hex in it decodes
    to."""
    return _with_embedded([normalised(View.of(text))])


def _with_embedded(views: list[View]) -> list[View]:
    """``views`` and what they decode to, at most :data:`MAX_VIEWS` decoded forms in all."""
    extra: dict[tuple[str, tuple[int, int]], View] = {}
    for view in views:
        for inner in embedded(view, MAX_VIEWS - len(extra)):
            forms = [inner]
            if "%" in inner.text or "+" in inner.text:
                forms.append(percent_decoded(inner, plus_as_space=True))
            for form in map(normalised, forms):
                # Invisible characters alone normalise to nothing.
                if form.text and len(extra) < MAX_VIEWS:
                    extra.setdefault((form.text, form.span(0, len(form.text))), form)
        if len(extra) >= MAX_VIEWS:
            break
    return views + list(extra.values())
