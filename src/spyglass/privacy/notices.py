"""Notices as plain lines, for the front ends that show text only (CLI prompt, MCP message).

The console highlights a notice's span in the query or URL; a terminal or an MCP host's
dialog cannot, so each line quotes the flagged part instead.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from spyglass.core.outcome import Notice

#: Longest quoted excerpt of a flagged span.
EXCERPT_CHARS = 60


def lines(notices: Sequence[Notice], arguments: Mapping[str, Any]) -> list[str]:
    """One line per notice, privacy findings first: ``! query contains an email address:
    "jane@example.com"`` or ``i from: result 3 of your search 'zebra facts'``."""
    ordered = sorted(notices, key=lambda n: not n.kind.startswith("privacy."))
    out = []
    for notice in ordered:
        if not notice.kind.startswith("privacy."):
            out.append(f"i from: {notice.message}" if notice.kind == "provenance" else
                       f"i {notice.message}")  # fmt: skip
            continue
        line = f"! {notice.argument or 'call'} {notice.message}"
        value = arguments.get(notice.argument or "")
        if isinstance(value, str) and notice.start is not None and notice.end is not None:
            excerpt = value[notice.start : notice.end]
            if len(excerpt) > EXCERPT_CHARS:
                excerpt = excerpt[: EXCERPT_CHARS - 1] + "…"
            line += f': "{excerpt}"'
        out.append(line)
    return out
