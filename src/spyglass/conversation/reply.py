"""The answer to a message: the JSON body of ``POST /api/v1/conversation/message`` and
the data of a streamed turn's final ``done`` event."""

from __future__ import annotations

from typing import Any

from spyglass.conversation.pending import TurnState
from spyglass.privacy import receipts


def response(state: TurnState, pending: list[dict[str, Any]]) -> dict[str, Any]:
    """The message endpoint's JSON answer (also the data of the final ``done`` event).

    ``pending``: the cards the turn waits for, in round order; ``pending_confirmation`` is
    the first of them (for clients that answer one card at a time), or ``null``."""
    data: dict[str, Any] = {
        "conversation_id": state.conversation_id,
        "turn_id": state.turn_id,
        "text": state.text,
    }
    if state.reasoning:
        data["reasoning"] = state.reasoning
    data["events"] = state.events
    data["citations"] = state.citations.for_answer(state.text)
    data["pending_confirmation"] = pending[0] if pending else None
    data["pending_confirmations"] = pending
    if state.notices:
        data["notices"] = state.notices
    waiting = [
        {
            "capability": card["capability"],
            "target": receipts.entry_target(card["capability"], card["arguments"]),
            "status": "pending_confirmation",
            "left": False,
            "at": receipts.now(),
        }
        for card in pending
    ]
    data["receipt"] = receipts.build([*state.receipt, *waiting])
    return data
