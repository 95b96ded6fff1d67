"""The text a reader sees of a Markdown reading: links and images as their labels."""

from __future__ import annotations

import re

#: ``[label](target)`` or ``![label](target)`` on one line.
_LINK = re.compile(r"!?\[([^\]\n]*)\]\([^)\n]*\)")


def link_text(markdown: str) -> str:
    """``markdown`` with every link and image replaced by its label."""
    # Every link has "](": most lines and blocks have none and need no substitution.
    return _LINK.sub(r"\1", markdown) if "](" in markdown else markdown
