"""Who receives an approved call, said the way every front end shows it.

A capability's precheck names the recipient (:data:`spyglass.core.outcome.RECIPIENT`); the
pending confirmation carries it as ``provider``. This is the one sentence the CLI prompt and
the MCP elicitation put above the call (the console's card says the same in its own words).
"""

from __future__ import annotations

from spyglass.core.outcome import DIRECT_RECIPIENT

SEARCH = "web.search"
FETCH = "web.fetch"


def recipient_line(capability: str, provider: str | None) -> str | None:
    """``"Search DuckDuckGo for:"``, ``"Open this page (Spyglass reads it itself):"`` or
    ``"Open this page through Jina Reader (it sees the address):"``; None when the
    recipient is not known."""
    if provider is None:
        return None
    if capability == SEARCH:
        return f"Search {provider} for:"
    if capability == FETCH:
        if provider == DIRECT_RECIPIENT:
            return "Open this page (Spyglass reads it itself):"
        return f"Open this page through {provider} (it sees the address):"
    return f"Sent to {provider}:"
