"""Who receives an approved call, said the way every front end shows it.

A capability's precheck names the recipient (:data:`spyglass.core.outcome.RECIPIENT`); the
pending confirmation carries it as ``provider``. This is the one sentence the CLI prompt and
the MCP elicitation put above the call (the console's card says the same in its own words),
and the one split of a call's arguments into what is sent and what stays on this device.
"""

from __future__ import annotations

from typing import Any

from spyglass.core.outcome import DIRECT_RECIPIENT

#: Arguments used only on this device, and what approval prompts call them: shown apart from
#: what is sent (``web.fetch``'s ``focus`` picks passages from the page after it is read).
STAYS_ON_DEVICE = {"focus": "looking for"}

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


def split_arguments(
    arguments: dict[str, Any],
) -> tuple[list[tuple[str, Any]], list[tuple[str, Any]]]:
    """``arguments`` as shown on an approval: ``(sent, kept)``, each a list of ``(label,
    value)``; ``kept`` are the ones that never leave this device, under their prompt label."""
    sent = [(key, value) for key, value in arguments.items() if key not in STAYS_ON_DEVICE]
    kept = [(label, arguments[key]) for key, label in STAYS_ON_DEVICE.items() if key in arguments]
    return sent, kept
