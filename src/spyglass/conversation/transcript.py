"""Building what the model reads: stored messages replayed, tool results re-wrapped."""

from __future__ import annotations

import json
from typing import Any

from spyglass.core.capability import Capability, Network
from spyglass.core.outcome import Outcome
from spyglass.untrusted.envelope import neutralise_json
from spyglass.untrusted.wrapping import wrap

DECLINED = (
    "The owner declined this call. Do not retry it; answer with what you already have, "
    "and say that the {name} call was declined."
)


def tool_payload(outcome: Outcome, result: dict[str, Any] | None = None) -> str:
    """The raw JSON a tool message carries, before any wrapping; ``result`` stands for the
    outcome's own (its sources numbered, ``Citations.numbered``)."""
    if outcome.ok:
        return json.dumps(outcome.result if result is None else result, ensure_ascii=False)
    if outcome.status == "denied" and outcome.error and outcome.error.code == "DENIED":
        return json.dumps({"status": "denied", "message": DECLINED.format(name=outcome.capability)})
    error = outcome.error
    return json.dumps(
        {
            "status": outcome.status,
            "error": {
                "code": error.code if error else "UNKNOWN",
                "message": error.message if error else "",
            },
        },
        ensure_ascii=False,
    )


def is_untrusted(capability: Capability | None, outcome: Outcome) -> bool:
    """Results of an external capability whose handler ran carry outside text: wrap them."""
    return (
        capability is not None
        and capability.network is Network.EXTERNAL
        and outcome.stage == "execute"
    )


def tool_message(call_id: str, payload: str, untrusted: bool) -> dict[str, Any]:
    # A fresh boundary every time a result is given to the model, including replays.
    return {
        "role": "tool",
        "tool_call_id": call_id,
        # The payload is JSON: its strings are checked as the model reads them, unescaped.
        "content": wrap(neutralise_json(payload)) if untrusted else payload,
    }


def replay(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Stored messages → chat messages, with every stored tool result wrapped afresh."""
    messages: list[dict[str, Any]] = []
    for row in rows:
        if row["role"] == "user":
            messages.append({"role": "user", "content": row["text"]})
            continue
        exchanges = row.get("exchanges") or []
        if exchanges:
            messages.append(
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": x["id"],
                            "type": "function",
                            "function": {"name": x["name"], "arguments": x["arguments"]},
                        }
                        for x in exchanges
                    ],
                }
            )
            for x in exchanges:
                messages.append(tool_message(x["id"], x["payload"], bool(x["untrusted"])))
        if row.get("text"):
            messages.append({"role": "assistant", "content": row["text"]})
    return messages
