"""Notices as plain lines, for the front ends that show text only (CLI prompt, MCP message).

The console highlights a notice's span in the query or URL; a terminal or an MCP host's
dialog cannot, so each line quotes the flagged part instead, written the way the arguments
themselves are (:mod:`spyglass.untrusted.shown`): a message may quote outside text (the query
behind a search result), so it cannot pass for Spyglass's own words either.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from spyglass.core.attempt import FINDING_PREFIX, warns
from spyglass.core.outcome import Notice
from spyglass.untrusted import shown

#: Longest quoted excerpt of a flagged span.
EXCERPT_CHARS = 60


def lines(
    notices: Sequence[Notice], arguments: Mapping[str, Any], *, markdown: bool = False
) -> list[str]:
    """One line per notice, warnings first: ``! query contains an email address:
    "jane@example.com"`` or ``i from: result 3 of your search 'zebra facts'``.

    ``markdown``: for a host that may render Markdown (quotes become code spans, and
    Markdown's active characters in a message are escaped).
    """
    words = shown.inert if markdown else shown.plain
    quote = shown.code if markdown else shown.quoted
    ordered = sorted(notices, key=lambda n: not warns(n))
    out = []
    for notice in ordered:
        message = words(notice.message)
        if not warns(notice):
            out.append(f"i from: {message}" if notice.kind == "provenance" else f"i {message}")
            continue
        line = f"! {notice.argument or 'call'} {message}"
        value = arguments.get(notice.argument or "")
        if (
            notice.kind.startswith(FINDING_PREFIX)
            and isinstance(value, str)
            and notice.start is not None
            and notice.end is not None
        ):
            excerpt = value[notice.start : notice.end]
            cut = len(excerpt) > EXCERPT_CHARS
            line += f": {quote(excerpt[: EXCERPT_CHARS - 1] if cut else excerpt)}"
            if cut:
                line += "…"
        out.append(line)
    return out
