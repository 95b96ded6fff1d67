"""Dropping lines that repeat earlier ones: share bars, "Reply" buttons, product tiles.

Boilerplate tends to repeat within a page (the same "Add to cart" under every product, the
same author signature under every post); content rarely does. Code blocks and table rows
are kept whole, since repeated lines there carry meaning. Lines that are only a heading or
list marker (an empty ``###``, a ``-`` whose item had no words) go too: they say nothing.
"""

from __future__ import annotations

import re

from spyglass.extract.links import link_text
from spyglass.extract.words import pieces, words

#: Lines of a single word ("Reply", "Share") repeat legitimately in lists and are cheap.
_MIN_WORDS = 2
#: A line that is only a heading or list marker.
_MARKER_ONLY = re.compile(r"\s*(?:#{1,6}|[-*+])\s*")


def line_words(line: str) -> list[str]:
    """A line's lower-case words, link targets left out: the same line has the same words
    wherever it is and whatever its Markdown (links, emphasis)."""
    return words(link_text(line).lower())


#: What :func:`drop_repeated_lines` makes of a line: left out (a bare marker), kept
#: whatever came before (too few words to count as a repeat), or its words' key.
_MARKER_LINE = ""
_FEW_WORDS = " "


def drop_repeated_lines(markdown: str, known: dict[str, str] | None = None) -> str:
    """``markdown`` without lines whose words (link targets ignored) appeared earlier, nor
    lines that are only a heading or list marker. ``known`` keeps what each line's words
    are across calls: a page's readings share most of their lines."""
    keys = known if known is not None else {}
    seen: set[str] = set()
    kept: list[str] = []
    in_code = False
    for line in markdown.split("\n"):
        stripped = line.lstrip()
        if stripped.startswith("```"):
            in_code = not in_code
            kept.append(line)
            continue
        if in_code or not stripped or stripped.startswith("|"):
            # Blank lines (half of a reading's lines) have no words to repeat.
            kept.append(line)
            continue
        key = keys.get(line)
        if key is None:
            key = keys[line] = _line_key(line)
        if key == _MARKER_LINE:
            continue
        if key != _FEW_WORDS:
            if key in seen:
                continue
            seen.add(key)
        kept.append(line)
    return "\n".join(kept)


def _line_key(line: str) -> str:
    if _MARKER_ONLY.fullmatch(line):
        return _MARKER_LINE
    # Piece by piece (the words of line_words): a page-long line's word list would be tens
    # of megabytes, its key a few.
    keyed: list[str] = []
    count = 0
    for piece in pieces(link_text(line).lower()):
        found = words(piece)
        if found:
            count += len(found)
            keyed.append(" ".join(found))
    return " ".join(keyed) if count >= _MIN_WORDS else _FEW_WORDS
