"""The words of a reading's text, read in pieces so a page-long line costs little memory.

A page at the size cap (``fetch.max_page_bytes``) can be one paragraph of five million
characters: every reading, and every step that counts or compares its words, then holds one
line of about 800,000 words. A list of them as Python strings takes about 50 MB, one per
step, so reading them whole set the extraction's peak memory. :func:`pieces` cuts a text
between words into bounded pieces whose word lists are small and short-lived; the words
found are exactly those of the whole text, as no word runs across a space, tab or line end.
:func:`words` finds ``\\w+`` words, on ASCII text without the regular expression, which
is about twice as fast there and gives the same words.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

__all__ = ["PIECE_CHARS", "one_spaced", "pieces", "words"]

#: About how many characters a piece holds (a piece ends at the next space after this many).
PIECE_CHARS = 1 << 16
#: A character no word holds, as ``\w+`` reads words and as ``bytes.split`` does.
_BREAK = re.compile(r"[ \t\n\r\f\v]")
_WORD = re.compile(r"\w+")
#: ASCII as ``\w`` reads it: letters, digits and ``_`` stay, everything else is a space.
_ASCII_WORD_CHARS = bytes(
    byte if chr(byte).isascii() and (chr(byte).isalnum() or chr(byte) == "_") else 32
    for byte in range(256)
)


def pieces(text: str, size: int = PIECE_CHARS) -> Iterator[str]:
    """``text`` in consecutive pieces that join back into it, each cut just after a space,
    tab or line end at least ``size`` characters past its start (the rest is one piece
    when there is none)."""
    start = 0
    while len(text) - start > size:
        found = _BREAK.search(text, start + size)
        if found is None:
            break
        yield text[start : found.end()]
        start = found.end()
    if start == 0:
        yield text
    elif start < len(text):
        yield text[start:]


def words(text: str) -> list[str]:
    """The ``\\w+`` words of ``text``, in order (``re.findall(r"\\w+", text)``)."""
    if not text.isascii():
        return _WORD.findall(text)
    # On ASCII text \w is [A-Za-z0-9_]: the other characters become spaces, and C's
    # translate and split find the same words as the pattern, in about half its time.
    return text.encode("ascii").translate(_ASCII_WORD_CHARS).decode("ascii").split()


def one_spaced(text: str) -> str:
    """``text`` with each run of whitespace one space and none at its ends
    (``" ".join(text.split())``), a long text a piece at a time."""
    if len(text) <= PIECE_CHARS:
        return " ".join(text.split())
    spaced = (" ".join(piece.split()) for piece in pieces(text))
    return " ".join(piece for piece in spaced if piece)
