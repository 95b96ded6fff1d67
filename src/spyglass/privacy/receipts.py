"""Receipts: what left this device while one answer was made.

Every assistant message carries one: "Stayed on this device", or "Left this device: searched
'zebra facts' (SearXNG), read zoo.example/zebra". Calls that were declined, refused before
any connection, or that failed are listed as such. A receipt holds the queries and addresses
themselves, so it lives with the conversation in history, never in the audit log.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from spyglass.core.encoding import printable
from spyglass.core.outcome import Outcome
from spyglass.net.errors import UNRESOLVED_NAME
from spyglass.privacy.provenance import short

#: How the provider ids read to a person.
PROVIDER_NAMES = {
    "searxng": "SearXNG",
    "brave": "Brave",
    "duckduckgo": "DuckDuckGo",
    "kagi": "Kagi",
    "tavily": "Tavily",
    "exa": "Exa",
    "firecrawl": "Firecrawl",
    "jina": "Jina",
}
#: Outcome status → how a call that did not go out is described.
NOT_SENT = {
    "denied": "declined",
    "rejected": "refused",
    "pending_confirmation": "waiting for your approval",
}
#: ``unasked`` rule → how a call that ran without a card reads on the receipt.
UNASKED_BY = {
    "flagged": "not asked: nothing flagged it",
    "conversation": "not asked: allowed for this conversation",
}
#: Error reason → how a call that did not go out is described, where the status alone would
#: mislead: a card nobody answered in time was not declined by anyone.
NOT_SENT_BECAUSE = {
    "expired": "expired before it was approved",
    UNRESOLVED_NAME: "failed: the site's name could not be looked up",
}


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def entry(outcome: Outcome, arguments: Any, at: str | None = None) -> dict[str, Any]:
    """One call, as a receipt line. ``left`` says whether a request went out at all: only a
    call that reached its execution and was not refused there can have sent anything."""
    arguments = arguments if isinstance(arguments, dict) else {}
    reason = outcome.error.reason if outcome.error is not None else None
    data: dict[str, Any] = {
        "capability": outcome.capability,
        "target": entry_target(outcome.capability, arguments),
        "status": outcome.status,
        # A name that could not be looked up opened no connection: nothing reached the site.
        "left": outcome.stage == "execute"
        and outcome.status in {"ok", "failed"}
        and reason != UNRESOLVED_NAME,
        "at": at or now(),
    }
    if outcome.provider is not None:
        data["provider"] = outcome.provider
    if outcome.unasked is not None:
        # It ran without a card: the receipt says so, and by which rule.
        data["unasked"] = outcome.unasked
    if outcome.error is not None:
        data["code"] = outcome.error.code
    if reason in NOT_SENT_BECAUSE:
        data["reason"] = reason
    result = outcome.result or {}
    if outcome.capability == "web.fetch" and result.get("rendered") is True:
        # A rendered page's scripts may have reached other sites: the receipt names them.
        data["rendered"] = True
        data["contacted_hosts"] = [str(h) for h in result.get("contacted_hosts", [])]
    return data


def entry_target(capability: str, arguments: dict[str, Any]) -> str:
    """The query or URL a call carries: what a receipt line names."""
    # A model's broken call can carry text UTF-8 cannot encode; the receipt is shown and
    # stored, so it names such a call with the text repaired.
    if capability == "web.search":
        return str(printable(str(arguments.get("query", ""))))
    if capability == "web.fetch":
        return str(printable(str(arguments.get("url", ""))))
    return ""


def _phrase(item: dict[str, Any], *, done: bool) -> str:
    capability, target = item["capability"], item.get("target", "")
    if capability == "web.search":
        verb, what = ("searched" if done else "search"), f"'{target}'"
    elif capability == "web.fetch":
        verb, what = "read", short(target)
    else:
        verb, what = "ran" if done else "run", capability
    return f"{verb} {what}"


def _when(item: dict[str, Any]) -> str:
    at = str(item.get("at", ""))
    return f"{at[11:16]} UTC" if len(at) >= 16 else at


def _not_sent(item: dict[str, Any]) -> str:
    provider = PROVIDER_NAMES.get(str(item.get("provider")))
    if item.get("reason") == UNRESOLVED_NAME and provider is not None:
        # A search provider's or hosted reader's name, not the site's.
        return f"failed: {provider}'s name could not be looked up"
    because = NOT_SENT_BECAUSE.get(str(item.get("reason")))
    if because is not None:
        return because
    status = str(item["status"])
    code = item.get("code")
    return NOT_SENT.get(status, status) + (f": {code}" if code and status != "denied" else "")


def build(items: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The receipt of one answer from its calls, in the order they happened."""
    left = [i for i in items if i.get("left")]
    kept = [i for i in items if not i.get("left")]
    parts: list[str] = []
    for item in left:
        provider = PROVIDER_NAMES.get(str(item.get("provider")))
        detail = [provider] if provider and item["capability"] == "web.search" else []
        if item.get("rendered"):
            hosts = len(item.get("contacted_hosts", []))
            detail.append(
                f"rendered, contacted {hosts} other host{'' if hosts == 1 else 's'}"
                if hosts
                else "rendered"
            )
        detail.append(_when(item))
        if item.get("unasked") in UNASKED_BY:
            detail.append(UNASKED_BY[item["unasked"]])
        if item.get("code") == "INTERRUPTED":
            detail.append("may have been sent: the process running it stopped")
        elif item["status"] != "ok":
            detail.append(f"failed: {item.get('code', 'error')}")
        parts.append(f"{_phrase(item, done=True)} ({', '.join(d for d in detail if d)})")
    unsent = [f"{_phrase(i, done=False)} ({_not_sent(i)})" for i in kept]
    summary = "Left this device: " + ", ".join(parts) if left else "Stayed on this device"
    if unsent:
        summary += "; not sent: " + ", ".join(unsent)
    return {"left_device": bool(left), "summary": summary, "items": list(items)}
