"""Links in a Markdown reading: found in one pass, and read as the text a reader sees.

A regular expression that finds a link by trying every ``[`` in turn reads the rest of the
line from each one that opens no link, so a paragraph of a page's own brackets costs time
that grows with the square of its length (forty thousand brackets took seconds; a large
page, hours of a worker thread). The patterns here find exactly the links that search found
but consume each bracket that opens no link together with the text its attempt read, so
each character is read a bounded number of times. Every match of :data:`LINK` is either a
link or a stretch of text that holds none; :func:`is_link` tells them apart.
"""

from __future__ import annotations

import re

__all__ = ["LINK", "is_link", "link_label_chars", "link_text", "without_targets"]

#: ``[label](target)`` or ``![label](target)`` on one line, where trafilatura writes a
#: target holding parentheses as ``(<target>)``; group 1 is the label with its brackets,
#: group 2 or 3 the target. A ``[`` that opens no link matches with no target: group 1 is
#: then the whole match (up to its ``]`` or the end of the line), so ``LINK.sub(r"\1", …)``
#: leaves it as it is. Every ``[`` between that one and the ``]`` would end its label at the
#: same ``]`` and fail the same way, so consuming them changes no link found.
LINK = re.compile(r"(!?\[[^\]\n]*\]?)(?:\((?:<([^<>\n]*)>|([^()\s]*(?:\([^()\s]*\)[^()\s]*)*))\))?")
# Labels without their brackets, for the text a reader sees; a target runs to the first
# ")". Group 1 is a link's label; group 2 is text holding no link (a label that never
# closes, or is not followed by "(", or whose target has no ")" on its line, after which
# no link on that line can close either), written back as it is.
_LABELLED = re.compile(r"!?\[([^\]\n]*)\]\([^)\n]*\)|(!?\[[^\]\n]*(?:\]\([^)\n]*)?)")


def is_link(match: re.Match[str]) -> bool:
    """Whether a match of :data:`LINK` is a link rather than text holding none."""
    # A link's last group is its target (2 or 3, though empty); text holding none has one.
    return match.lastindex != 1


def without_targets(markdown: str) -> str:
    """``markdown`` with every link and image as its label in brackets, target left out."""
    return LINK.sub(r"\1", markdown)


def link_label_chars(markdown: str) -> int:
    """How many characters of ``markdown`` are link labels (brackets included)."""
    if "](" not in markdown:
        return 0
    # is_link inline: this runs on every block of every reading.
    return sum(len(match[1]) for match in LINK.finditer(markdown) if match.lastindex != 1)


def link_text(markdown: str) -> str:
    """``markdown`` with every link and image replaced by its label."""
    # Every link has "](": most lines and blocks have none and need no substitution.
    return _LABELLED.sub(r"\1\2", markdown) if "](" in markdown else markdown
