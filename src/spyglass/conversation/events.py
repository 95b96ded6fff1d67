"""ToolEvent: what the person sees about one tool call (never the raw page text)."""

from __future__ import annotations

from typing import Any

from spyglass.core.encoding import printable
from spyglass.core.outcome import Outcome


def tool_event(outcome: Outcome, arguments: Any) -> dict[str, Any]:
    """The HTTP contract's ToolEvent for an Outcome."""
    event: dict[str, Any] = {
        "type": "tool",
        "capability": outcome.capability,
        # A model's arguments may hold text that cannot be encoded; shown repaired.
        "arguments": printable(arguments) if isinstance(arguments, dict) else {},
        "status": outcome.status,
    }
    if outcome.error is not None:
        event["code"] = outcome.error.code
        event["message"] = outcome.error.message
    if outcome.provider is not None:
        event["provider"] = outcome.provider
    if outcome.unasked is not None:
        # Ran without a card: by which rule (``flagged``, ``conversation``).
        event["unasked"] = outcome.unasked
    summary = _summary(outcome)
    if summary is not None:
        event["summary"] = summary
    return event


def _summary(outcome: Outcome) -> dict[str, Any] | None:
    result = outcome.result
    if not outcome.ok or result is None:
        return None
    if outcome.capability == "web.search":
        hits = [
            {"title": h.get("title"), "url": h.get("url"), "snippet": h.get("snippet")}
            for h in result.get("results") or []
            if isinstance(h, dict)
        ]
        return {"result_count": result.get("result_count", len(hits)), "results": hits}
    if outcome.capability == "web.fetch":
        return {
            "title": result.get("title"),
            "url": result.get("url"),
            "final_url": result.get("final_url"),
            "redirected": bool(result.get("redirected")),
        }
    return None
