"""The in-process store of paused turns."""

from __future__ import annotations

from spyglass.conversation.pending import (
    RECALL_SECONDS,
    InMemoryPendingTurnStore,
    PausedTurn,
    TurnState,
)
from spyglass.core.context import Turn
from tests.support.service import Clock


def paused(token: str, conversation: str, expires_at: float) -> PausedTurn:
    state = TurnState(conversation_id=conversation, turn_id="t", messages=[], turn=Turn())
    return PausedTurn(token, state, expires_at)


def test_a_paused_turn_is_taken_once() -> None:
    store = InMemoryPendingTurnStore(Clock(0))
    store.put(paused("tok", "c1", 100))
    assert store.take("tok", "c1") is not None
    assert store.take("tok", "c1") is None


def test_a_foreign_conversation_cannot_take_it_and_it_stays_for_its_owner() -> None:
    store = InMemoryPendingTurnStore(Clock(0))
    store.put(paused("tok", "c1", 100))
    assert store.take("tok", "c2") is None
    assert store.take("tok", "c1") is not None


def test_an_expired_turn_is_still_given_back_for_a_while_so_a_late_answer_can_finish_it() -> None:
    clock = Clock(0)
    store = InMemoryPendingTurnStore(clock)
    store.put(paused("tok", "c1", 100))
    clock.now = 100 + RECALL_SECONDS
    assert store.take("tok", "c1") is not None


def test_a_turn_expired_longer_than_that_is_not_given_back_and_is_dropped() -> None:
    clock = Clock(0)
    store = InMemoryPendingTurnStore(clock)
    store.put(paused("tok", "c1", 100))
    store.put(paused("old", "c1", 100))
    clock.now = 101 + RECALL_SECONDS
    assert store.take("tok", "c1") is None
    store.put(paused("new", "c1", 500))
    assert len(store) == 1  # the long-expired one was pruned
