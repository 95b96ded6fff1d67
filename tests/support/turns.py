"""Running a conversation turn to its end, for the conversation tests."""

from __future__ import annotations

from typing import Any

from spyglass.conversation.turn import ConversationRunner, Event


async def run(
    service: ConversationRunner, text_: str, conversation_id: str | None = None
) -> list[Event]:
    """Start a turn saying ``text_`` and run it to its end, or to the card it pauses at."""
    state = await service.start(conversation_id, text_)
    return [event async for event in service.run(state)]


def done(events: list[Event]) -> dict[str, Any]:
    """The body of a run's last event, which must be ``done``."""
    assert events[-1][0] == "done"
    return events[-1][1]
