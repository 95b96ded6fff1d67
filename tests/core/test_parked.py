"""A waiting call kept by its caller: a card it issues goes to the caller's keeping instead of
the store, and a card the caller took but the call never answered goes back to the store."""

from __future__ import annotations

from typing import Any

from spyglass.core.confirmation import PendingRecord, Taken
from spyglass.core.outcome import Outcome
from spyglass.core.parked import Parked
from spyglass.core.policy import WEB_ACCESS
from tests.support.executor import Harness


async def test_a_card_for_a_parked_call_is_kept_by_the_caller_not_the_store(
    harness: Harness,
) -> None:
    kept: list[tuple[PendingRecord, Outcome]] = []

    async def keep(record: PendingRecord, outcome: Outcome) -> None:
        kept.append((record, outcome))

    outcome = await harness.executor.ainvoke(
        "test.echo", None, {"text": "a"}, channel="t", parked=Parked(keep=keep)
    )
    assert outcome.pending_confirmation is not None
    [(record, shown)] = kept
    assert shown is outcome and record.token == outcome.pending_confirmation.token
    assert len(harness.store) == 0
    # The record the caller kept approves the call, handed over as taken with its turn.
    done = await harness.executor.ainvoke(
        "test.echo",
        None,
        {"text": "a"},
        channel="t",
        confirmation_token=record.token,
        parked=Parked(taken=Taken(record)),
    )
    assert done.ok and done.invocation_id == outcome.invocation_id


async def test_a_card_the_caller_took_is_put_back_when_the_call_stops_before_its_answer(
    harness: Harness,
) -> None:
    pending = await harness.executor.ainvoke("test.echo", None, {"text": "a"}, channel="t")
    assert pending.pending_confirmation is not None
    token = pending.pending_confirmation.token
    taken = Taken(await harness.store.take(token))
    harness.policy.set(WEB_ACCESS, False)
    refused: Any = await harness.executor.ainvoke(
        "test.echo",
        None,
        {"text": "a"},
        channel="t",
        confirmation_token=token,
        parked=Parked(taken=taken),
    )
    assert refused.stage == "policy"
    assert len(harness.store) == 1  # back to expire, and be audited, as before
    harness.policy.set(WEB_ACCESS, True)
    done = await harness.executor.ainvoke(
        "test.echo", None, {"text": "a"}, channel="t", confirmation_token=token
    )
    assert done.ok
