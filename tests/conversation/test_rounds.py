"""A round of calls: every call that needs no card runs (live), every call that needs asking
gets its own card and they come back at once; one batch answers them, a partial answer pauses
the turn again, a card that expired unanswered counts as declined."""

from __future__ import annotations

from typing import Any

import pytest

from spyglass.conversation.turn import DEFERRED, ConversationRunner, TurnRefused
from spyglass.core.confirmation import ConfirmationReply, PendingRecord
from spyglass.errors import StoreUnavailable
from spyglass.runtime import Runtime
from tests.support.fake_model import FakeModel, text, tool_calls
from tests.support.service import Clock
from tests.support.turns import done, run
from tests.support.web import LoopbackWeb


def three_calls() -> Any:
    """A round of a search, a local check and another search: two cards, one call that
    needs none."""
    return tool_calls(
        ("web_search", {"query": "a"}, "c1"),
        ("system_health", {}, "c2"),
        ("web_search", {"query": "b"}, "c3"),
        style="openai",
    )


async def test_a_round_s_call_that_needs_no_card_runs_live_while_the_others_wait(
    service: ConversationRunner, fake_model: FakeModel, service_runtime: Runtime, web: LoopbackWeb
) -> None:
    service_runtime.policy.set("web_access_enabled", True)
    fake_model.script(three_calls(), text("Done."))
    events = await run(service, "three things")
    names = [name for name, _ in events]
    assert names.count("tool_start") == 3 and names.count("tool_end") == 3
    ended = [data["status"] for name, data in events if name == "tool_end"]
    assert ended == ["pending_confirmation", "ok", "pending_confirmation"]
    body = done(events)
    assert [c["arguments"] for c in body["pending_confirmations"]] == [
        {"query": "a"},
        {"query": "b"},
    ]
    assert ("pending_confirmations", {"pending_confirmations": body["pending_confirmations"]}) in (
        events
    )
    # The receipt lists both waiting calls as not sent.
    waiting = [i for i in body["receipt"]["items"] if i["status"] == "pending_confirmation"]
    assert [(i["target"], i["left"]) for i in waiting] == [("a", False), ("b", False)]
    assert web.hits["/search"] == 0


async def test_one_batch_answers_every_card_of_the_round_and_the_turn_goes_on(
    service: ConversationRunner, fake_model: FakeModel, service_runtime: Runtime, web: LoopbackWeb
) -> None:
    service_runtime.policy.set("web_access_enabled", True)
    fake_model.script(three_calls(), text("One searched, one declined."))
    first = done(await run(service, "three things"))
    a, b = (c["token"] for c in first["pending_confirmations"])
    # Answered in any order: the round's calls are answered in its own order.
    state = await service.resume(first["conversation_id"], [b, a])
    replies = [ConfirmationReply(b, False), ConfirmationReply(a, True)]
    last = done([e async for e in service.run(state, replies)])
    assert last["text"] == "One searched, one declined."
    assert [e["status"] for e in last["events"]] == ["ok", "ok", "denied"]
    assert web.hits["/search"] == 1
    # The model saw all three results, in the round's order, in one more request.
    assert len(fake_model.requests) == 2
    tool_ids = [
        m["tool_call_id"] for m in fake_model.requests[1]["messages"] if m["role"] == "tool"
    ]
    assert sorted(tool_ids) == ["c1", "c2", "c3"]
    # Each token was single use.
    with pytest.raises(TurnRefused):
        await service.resume(first["conversation_id"], a)


async def test_a_batch_that_names_a_card_not_waiting_in_the_turn_is_refused_and_changes_nothing(
    service: ConversationRunner, fake_model: FakeModel, service_runtime: Runtime, web: LoopbackWeb
) -> None:
    service_runtime.policy.set("web_access_enabled", True)
    fake_model.script(three_calls(), text("Both."))
    first = done(await run(service, "three things"))
    a, b = (c["token"] for c in first["pending_confirmations"])
    with pytest.raises(TurnRefused) as refused:
        await service.resume(first["conversation_id"], [a, "not-a-card-of-this-turn"])
    assert refused.value.status == 400 and "not waiting in this turn" in refused.value.message
    # Without the first card still waiting, the turn is not found at all.
    with pytest.raises(TurnRefused) as missing:
        await service.resume(first["conversation_id"], [b, "another-stranger"])
    assert "pending_confirmation" in missing.value.message
    # Nothing was spent: the right batch still carries the turn on.
    state = await service.resume(first["conversation_id"], [a, b])
    replies = [ConfirmationReply(a, True), ConfirmationReply(b, True)]
    last = done([e async for e in service.run(state, replies)])
    assert [e["status"] for e in last["events"]] == ["ok", "ok", "ok"]
    assert web.hits["/search"] == 2


async def test_a_card_that_expired_unanswered_counts_as_declined_and_the_turn_goes_on(
    service: ConversationRunner,
    fake_model: FakeModel,
    service_runtime: Runtime,
    web: LoopbackWeb,
    clock: Clock,
) -> None:
    service_runtime.policy.set("web_access_enabled", True)
    fake_model.script(three_calls(), text("Nothing was searched."))
    first = done(await run(service, "three things"))
    a = first["pending_confirmation"]["token"]
    clock.now += 121
    # A late answer to the first card alone: both cards had expired, so both are declined.
    state = await service.resume(first["conversation_id"], a)
    last = done([e async for e in service.run(state, ConfirmationReply(a, True))])
    assert last["text"] == "Nothing was searched."
    assert last["pending_confirmations"] == []
    statuses = [(e["status"], e.get("code")) for e in last["events"]]
    assert statuses[1] == ("ok", None)
    assert statuses[0][0] == statuses[2][0] == "denied"
    assert web.hits["/search"] == 0


class _UnreachableFor:
    """The executor's confirmation store, unreachable when ``failing`` tokens are taken."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.failing: set[str] = set()

    async def put(self, record: PendingRecord) -> None:
        await self.inner.put(record)

    async def take(self, token: str) -> PendingRecord | None:
        if token in self.failing:
            raise StoreUnavailable("sqlite", "the state file is locked")
        record: PendingRecord | None = await self.inner.take(token)
        return record

    async def claim_expired(self, now: float, limit: int) -> list[PendingRecord]:
        found: list[PendingRecord] = await self.inner.claim_expired(now, limit)
        return found


async def test_a_batch_whose_later_answer_meets_an_outage_is_paused_again_and_sent_again(
    service: ConversationRunner, fake_model: FakeModel, service_runtime: Runtime, web: LoopbackWeb
) -> None:
    service_runtime.policy.set("web_access_enabled", True)
    store = _UnreachableFor(service_runtime.executor.confirmations)
    service_runtime.executor.confirmations = store  # type: ignore[assignment]
    fake_model.script(
        tool_calls(
            ("web_search", {"query": "a"}, "c1"),
            ("web_search", {"query": "b"}, "c2"),
            style="openai",
        ),
        text("Both found."),
    )
    first = done(await run(service, "two searches"))
    a, b = (c["token"] for c in first["pending_confirmations"])
    batch = [ConfirmationReply(a, True), ConfirmationReply(b, True)]
    store.failing = {b}
    state = await service.resume(first["conversation_id"], [a, b])
    events = [e async for e in service.run(state, batch)]
    assert [d["error"]["code"] for n, d in events if n == "error"] == [DEFERRED]
    assert [c["token"] for c in done(events)["pending_confirmations"]] == [b]
    assert web.hits["/search"] == 1
    # Once the store is back the same batch carries the turn on; the first call is not re-run.
    store.failing = set()
    state = await service.resume(first["conversation_id"], [a, b])
    last = done([e async for e in service.run(state, batch)])
    assert last["text"] == "Both found."
    assert [e["status"] for e in last["events"]] == ["ok", "ok"]
    assert web.hits["/search"] == 2
