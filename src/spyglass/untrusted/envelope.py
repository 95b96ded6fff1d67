"""The untrusted envelope's tag, and keeping every spelling of it out of web text.

Web text reaches a model inside ``<untrusted_tool_output id="…">`` … ``</untrusted_tool_output
id="…">``. The random boundary already stops a page from closing the envelope, but a model
reads loosely: ``</UNTRUSTED_TOOL_OUTPUT>``, ``&lt;/untrusted tool output&gt;``, fullwidth
letters, zero-width characters or accents between the letters, and letters of other scripts that
look the same (Cyrillic ``о``, Greek ``ρ``, mathematical ``𝐮``) all look like the tag to it. So
the name itself, in any of those spellings, is replaced in text from outside before it is
wrapped.

How: text that is not plain ASCII is first *folded*, one character at a time, to what it reads
as (``spyglass.untrusted.lookalikes``: Unicode compatibility decomposition with the accents
dropped, and the confusables of Unicode Technical Standard #39), numeric character references
decoded on the way; the name is then looked for in the folded text, and what matched is
replaced in the original. ASCII look-alikes (``1``, ``I`` and ``|`` for ``l``; ``0`` for ``o``)
are matched directly.
"""

from __future__ import annotations

import bisect
import functools
import json
import re
from dataclasses import dataclass
from typing import Any

from spyglass.untrusted.lookalikes import ASCII_ALIKES, READS_AS

TAG = "untrusted_tool_output"
REPLACEMENT = "[envelope tag removed]"

# One character that renders as nothing (zero-width, joiners, soft hyphen, BOM, bidi and
# variation controls), spelled out, as an entity or as a JSON/Python escape of anything.
_INVISIBLE_ONE = (
    r"[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
    r"\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0"
    # Combining marks: an accent on a letter, or a stack of them, does not change the word.
    r"\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]"
    r"|\\u[0-9a-fA-F]{4}"
    r"|&#0*(?:173|8203|8204|8205|8288|65279);|&#[xX]0*(?:ad|200b|200c|200d|2060|feff);"
    r"|&(?:shy|zwj|zwnj|NoBreak);"
)
# What may stand between the words: also spaces, underscores, hyphens and dots.
_SEPARATOR_ONE = (
    r"[\s_\-.\u2010-\u2015\u00a0\u3000\uff3f\uff0d]"
    r"|&#0*(?:95|32|45|160);|&#[xX]0*(?:5f|20|2d|a0);|&(?:lowbar|UnderBar|nbsp|hyphen|dash);"
)
_INVISIBLE = f"(?:{_INVISIBLE_ONE})*"
_SEPARATOR = f"(?:{_SEPARATOR_ONE}|{_INVISIBLE_ONE})*"


def letter_options(char: str) -> list[str]:
    """The ways the pattern spells one letter of the name (matched ignoring case, except the
    ASCII look-alikes)."""
    lower, upper = char.lower(), char.upper()
    # One spelling of each form: the pattern ignores case, so "u" matches "U" and "ｕ" matches
    # "Ｕ". Two options matching the same character made a failed match try both at every
    # letter, 2**19 ways for the whole name: a page of "untrusted_tool_outpu" repeated took
    # seconds per kilobyte.
    options = [
        re.escape(lower),
        chr(ord(lower) - ord("a") + 0xFF41),  # fullwidth form
        f"&#0*{ord(lower)};",
        f"&#0*{ord(upper)};",
        f"&#[xX]0*{ord(lower):x};",
        f"&#[xX]0*{ord(upper):x};",
    ]
    # ASCII look-alikes, matched case-sensitively (``I`` reads as ``l``; ``i`` does not).
    alikes = ASCII_ALIKES.get(lower, "") + ASCII_ALIKES.get(upper, "")
    options += [f"(?-i:{re.escape(alike)})" for alike in alikes]
    return options


def _letter(char: str) -> str:
    return "(?:" + "|".join(letter_options(char)) + ")"


def _word(word: str) -> str:
    return _INVISIBLE.join(_letter(char) for char in word)


@functools.cache
def _name() -> re.Pattern[str]:
    # Compiled on first use (tens of milliseconds): importing this module costs start-up time
    # for every command that only lists or refuses.
    return re.compile(_SEPARATOR.join(_word(word) for word in TAG.split("_")), re.IGNORECASE)


# Every non-ASCII character that reads as exactly one character: folded by str.translate,
# which keeps every offset. Those that read as several (``ﬆ``, ``℡``) and numeric character
# references change the length and are folded piece by piece.
_ONE = {
    ord(char): reading for reading, chars in READS_AS.items() if len(reading) == 1 for char in chars
}
_SEVERAL = {
    char: reading for reading, chars in READS_AS.items() if len(reading) > 1 for char in chars
}
_RESIZED = re.compile(
    r"&#(?:[0-9]{1,7}|[xX][0-9a-fA-F]{1,6});"
    + ("|[" + "".join(re.escape(char) for char in _SEVERAL) + "]" if _SEVERAL else "")
)


@dataclass(frozen=True, slots=True)
class _Piece:
    """Where one stretch of folded text came from in the original."""

    folded: int  # start in the folded text
    start: int  # start in the original
    end: int  # end in the original
    same_length: bool  # one folded character per original character


def _read_as(char: str) -> str:
    return _SEVERAL.get(char) or char.translate(_ONE)


def _reference(match: str) -> str:
    """A numeric character reference's character, folded; the reference itself if invalid."""
    digits = match[2:-1]
    point = int(digits[1:], 16) if digits[:1] in "xX" else int(digits)
    if point > 0x10FFFF or 0xD800 <= point <= 0xDFFF:
        return match
    return _read_as(chr(point))


def _fold(text: str) -> tuple[str, list[_Piece] | None]:
    """``text`` as it reads, and the pieces to map offsets back (None: offsets are the same)."""
    if text.isascii() and "&#" not in text:
        return text, None
    folded = text.translate(_ONE)
    if _RESIZED.search(folded) is None:
        return folded, None
    parts: list[str] = []
    pieces: list[_Piece] = []
    at = position = 0
    for match in _RESIZED.finditer(text):
        if match.start() > position:
            parts.append(folded[position : match.start()])
            pieces.append(_Piece(at, position, match.start(), True))
            at += match.start() - position
        piece = match.group()
        reading = _reference(piece) if piece.startswith("&#") else _SEVERAL[piece]
        parts.append(reading)
        pieces.append(_Piece(at, match.start(), match.end(), reading == piece))
        at += len(reading)
        position = match.end()
    if position < len(text):
        parts.append(folded[position:])
        pieces.append(_Piece(at, position, len(text), True))
    return "".join(parts), pieces


def _original(pieces: list[_Piece], start: int, end: int) -> tuple[int, int]:
    """The original span of the folded span ``start:end`` (whole pieces where they changed)."""
    starts = [piece.folded for piece in pieces]
    first = pieces[bisect.bisect_right(starts, start) - 1]
    last = pieces[bisect.bisect_right(starts, end - 1) - 1]
    begin = first.start + (start - first.folded) if first.same_length else first.start
    finish = last.start + (end - last.folded) if last.same_length else last.end
    return begin, finish


def _spans(text: str) -> list[tuple[int, int]]:
    folded, pieces = _fold(text)
    spans = [match.span() for match in _name().finditer(folded)]
    if pieces is None:
        return spans
    return [_original(pieces, start, end) for start, end in spans]


def neutralise(text: str) -> str:
    """``text`` with every spelling of the envelope's tag name replaced."""
    spans = _spans(text)
    if not spans:
        return text
    out: list[str] = []
    position = 0
    for start, end in spans:
        out.append(text[position:start])
        out.append(REPLACEMENT)
        position = end
    out.append(text[position:])
    return "".join(out)


def contains_tag(text: str) -> bool:
    """Whether ``text`` holds the envelope's tag name in any spelling this module knows."""
    folded, _pieces = _fold(text)
    return _name().search(folded) is not None


def _neutralised(value: Any) -> Any:
    if isinstance(value, str):
        return neutralise(value)
    if isinstance(value, list):
        return [_neutralised(item) for item in value]
    if isinstance(value, dict):
        return {neutralise(key): _neutralised(item) for key, item in value.items()}
    return value


def neutralise_json(payload: str) -> str:
    """``payload`` (JSON) with the tag replaced in every string *before* it is escaped.

    In JSON text a page's newline or tab between the tag's words is ``\\n`` or ``\\t``, and a
    look-alike letter may be a ``\\u`` escape: the model reads them as the characters, so the
    strings are checked as decoded. Text that is not JSON is neutralised as it is.
    """
    try:
        value = json.loads(payload)
    except ValueError:
        return neutralise(payload)
    if not isinstance(value, dict | list):
        return neutralise(payload)
    return json.dumps(_neutralised(value), ensure_ascii=False)
