"""Running a conversation turn to its end, for the conversation tests."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from spyglass.conversation.pending import PendingTurnStore
from spyglass.conversation.turn import ConversationRunner, Event
from spyglass.history.store import HistoryStore
from spyglass.llm.client import ModelClient
from spyglass.privacy.provenance import ProvenanceStore
from spyglass.runtime import Runtime


@asynccontextmanager
async def running(
    runtime: Runtime,
    history: HistoryStore,
    pending: PendingTurnStore | None = None,
    provenance: ProvenanceStore | None = None,
) -> AsyncIterator[ConversationRunner]:
    """A runner on ``runtime``'s model settings keeping turns in ``history`` and ``pending``
    (the runtime's own paused-turn store unless given); the model client, the history and
    the runtime's stores are closed after, whatever happened."""
    model = ModelClient(runtime.settings.llm)
    try:
        yield ConversationRunner(
            runtime.executor,
            model,
            history,
            pending or runtime.stores.pending,
            policy=runtime.policy,
            provenance=provenance,
        )
    finally:
        await model.aclose()
        await history.close()
        await runtime.stores.aclose()


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
