"""Where a turn is kept (history, paused turns, sources) while it runs: each store's
write goes side by side with the work it does not wait for, happens once, and a failure
fails only what it must. Stores that wait for each other prove the overlap: run one after
the other, they would wait for ever (each wait has a deadline)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from typing import Any

import pytest

from spyglass.conversation.pending import PausedTurn
from spyglass.conversation.turn import ConversationRunner, TurnRefused
from spyglass.core.confirmation import ConfirmationReply, PendingRecord, token_digest
from spyglass.errors import StoreUnavailable
from spyglass.history.store import NullHistory
from spyglass.llm.client import ModelClient
from spyglass.privacy.provenance import InMemoryProvenanceStore, Source
from spyglass.runtime import Runtime
from spyglass.state.sqlite.history import SQLiteHistory, ThreadedHistory
from spyglass.state.sqlite.statefile import SQLitePendingTurnStore, StateDB
from tests.support.fake_model import FakeModel, text, tool_call, tool_calls
from tests.support.turns import done, run, running
from tests.support.web import LoopbackWeb


class _WritesAfterTheClaim(ThreadedHistory):
    """History whose first write waits until the conversation was claimed."""

    def __init__(self, store: SQLiteHistory, claimed: asyncio.Event) -> None:
        super().__init__(store)
        self.claimed = claimed

    async def add_user(self, conversation_id: str, turn_id: str, text: str, *, title: str) -> None:
        await asyncio.wait_for(self.claimed.wait(), timeout=5)
        await super().add_user(conversation_id, turn_id, text, title=title)


async def test_a_new_conversation_is_claimed_side_by_side_with_the_first_write(
    service_runtime: Runtime,
) -> None:
    claimed = asyncio.Event()
    owners: list[str] = []

    async def claim(conversation_id: str) -> None:
        owners.append(conversation_id)
        claimed.set()

    history = _WritesAfterTheClaim(
        SQLiteHistory(service_runtime.paths.database_file, retention_days=30), claimed
    )
    async with running(service_runtime, history) as runner:
        # One after the other, the write would wait for a claim that never comes.
        state = await runner.start(None, "hello", claim=claim)
        assert owners == [state.conversation_id]
        assert await history.exists(state.conversation_id)


async def test_a_failed_claim_fails_the_start_after_the_write_has_ended(
    service: ConversationRunner,
) -> None:
    async def claim(conversation_id: str) -> None:
        raise RuntimeError("the accounts store broke")

    with pytest.raises(RuntimeError, match="accounts store broke"):
        await service.start(None, "hello", claim=claim)


class _SourcesAfterTheNextAnswer(InMemoryProvenanceStore):
    """Keeps sources only once the model was asked again after the call."""

    def __init__(self, model: FakeModel) -> None:
        super().__init__()
        self.model = model

    async def add(self, conversation_id: str, sources: Sequence[Source]) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 5
        while len(self.model.requests) < 2:
            if loop.time() > deadline:
                raise AssertionError("the turn waited for its sources to be written")
            await asyncio.sleep(0.005)
        await super().add(conversation_id, sources)


async def test_a_search_s_sources_are_written_beside_the_next_answer_and_kept_by_the_end(
    service_runtime: Runtime, fake_model: FakeModel, web: LoopbackWeb
) -> None:
    service_runtime.policy.set("web_access_enabled", True)
    fake_model.script(tool_call("web_search", {"query": "tides"}), text("Found."))
    sources = _SourcesAfterTheNextAnswer(fake_model)
    async with running(service_runtime, NullHistory(), provenance=sources) as runner:
        first = done(await run(runner, "search the tides"))
        token = first["pending_confirmation"]["token"]
        state = await runner.resume(first["conversation_id"], token)
        second = done([e async for e in runner.run(state, ConfirmationReply(token, True))])
        assert second["text"] == "Found."
        kept = await sources.sources(first["conversation_id"])
        assert kept and {s.origin for s in kept} == {"search"}


class _ReadsAfterTheOwnerCheck(ThreadedHistory):
    """History whose read of a conversation waits until the owner check has begun."""

    def __init__(self, store: SQLiteHistory, asked: asyncio.Event) -> None:
        super().__init__(store)
        self.asked = asked

    async def messages(self, conversation_id: str) -> list[dict[str, Any]]:
        await asyncio.wait_for(self.asked.wait(), timeout=5)
        return await super().messages(conversation_id)


async def test_whose_conversation_it_is_is_asked_beside_reading_it_and_a_no_writes_nothing(
    service_runtime: Runtime, fake_model: FakeModel
) -> None:
    asked = asyncio.Event()
    answer = {"value": True}

    async def may_continue(conversation_id: str) -> bool:
        asked.set()
        return answer["value"]

    history = _ReadsAfterTheOwnerCheck(
        SQLiteHistory(service_runtime.paths.database_file, retention_days=30), asked
    )
    async with running(service_runtime, history) as runner:
        fake_model.script(text("Hi."))
        first = done(await run(runner, "hello"))
        conversation_id = first["conversation_id"]
        # One after the other, the read would wait for a check that has not begun.
        state = await runner.start(conversation_id, "again", may_continue=may_continue)
        assert state.conversation_id == conversation_id
        answer["value"] = False
        with pytest.raises(TurnRefused) as refused:
            await runner.start(conversation_id, "not mine", may_continue=may_continue)
        assert refused.value.code == "NOT_FOUND"
        texts = [m["text"] for m in await history.messages(conversation_id)]
        assert "not mine" not in texts


async def test_a_paused_call_and_its_token_are_kept_and_claimed_in_one_state_transaction_each(
    service: ConversationRunner, service_runtime: Runtime, fake_model: FakeModel, web: LoopbackWeb
) -> None:
    """Each step of an approval is one trip to the state file: the token and the paused turn
    are written together, and the claim of the turn takes the token with it."""
    service_runtime.policy.set("web_access_enabled", True)
    fake_model.script(tool_call("web_search", {"query": "tides"}), text("High at noon."))
    statements: list[str] = []
    db = service_runtime.stores.pending.db  # type: ignore[attr-defined]
    # SQLite's own statement trace on the state file's connection.
    db.run_blocking(lambda connection: connection.set_trace_callback(statements.append))

    def transactions() -> list[str]:
        found = [s.split()[0] for s in statements if s.split()[0] in ("BEGIN", "DELETE")]
        statements.clear()
        return found

    first = done(await run(service, "search the tides"))
    token = first["pending_confirmation"]["token"]
    # Two cleanup DELETEs and the inserts, in one BEGIN: one trip for both.
    assert transactions().count("BEGIN") == 1
    state = await service.resume(first["conversation_id"], token)
    assert transactions() == ["BEGIN", "DELETE"]  # the claim, and the token taken inside it
    assert await service_runtime.executor.confirmations.take(token) is None
    statements.clear()
    last = done([e async for e in service.run(state, ConfirmationReply(token, True))])
    assert [e["status"] for e in last["events"]] == ["ok"]
    assert web.hits["/search"] == 1
    assert "DELETE FROM confirmations" not in " ".join(statements)  # not taken again


async def test_a_token_taken_with_its_turn_but_stopped_before_its_answer_is_put_back(
    service: ConversationRunner, service_runtime: Runtime, fake_model: FakeModel, web: LoopbackWeb
) -> None:
    """Web access switched off between the card and its approval: the call stops at policy,
    and its token goes back to the store, to expire (and be audited) as before."""
    service_runtime.policy.set("web_access_enabled", True)
    fake_model.script(tool_call("web_search", {"query": "tides"}), text("I could not search."))
    first = done(await run(service, "search the tides"))
    token = first["pending_confirmation"]["token"]
    state = await service.resume(first["conversation_id"], token)
    service_runtime.policy.set("web_access_enabled", False)
    last = done([e async for e in service.run(state, ConfirmationReply(token, True))])
    assert [e["status"] for e in last["events"]] == ["rejected"]
    assert web.hits["/search"] == 0
    kept = await service_runtime.executor.confirmations.take(token)
    assert kept is not None and kept.binding.capability == "web.search"


class _SavesCounted(ThreadedHistory):
    """History that says when a save of an answer has begun, and counts them."""

    def __init__(self, store: SQLiteHistory) -> None:
        super().__init__(store)
        self.saving = asyncio.Event()
        self.saves = 0

    async def save_assistant(self, *args: Any, **kwargs: Any) -> None:
        self.saves += 1
        self.saving.set()
        await super().save_assistant(*args, **kwargs)


class _PausesBesideTheSave(SQLitePendingTurnStore):
    """The state file's paused turns, kept only once the history save has begun."""

    def __init__(self, db: StateDB, lease: float, saving: asyncio.Event) -> None:
        super().__init__(db, lease)
        self.saving = saving

    async def put(self, paused: PausedTurn, record: PendingRecord | None = None) -> None:
        await asyncio.wait_for(self.saving.wait(), timeout=5)
        await super().put(paused, record)


async def test_a_pausing_turn_is_saved_to_history_beside_keeping_it_and_only_once(
    service_runtime: Runtime, fake_model: FakeModel, web: LoopbackWeb
) -> None:
    service_runtime.policy.set("web_access_enabled", True)
    fake_model.script(tool_call("web_search", {"query": "tides"}), text("High at noon."))
    history = _SavesCounted(SQLiteHistory(service_runtime.paths.database_file, retention_days=30))
    state_db = service_runtime.stores.pending.db  # type: ignore[attr-defined]
    pending = _PausesBesideTheSave(state_db, 30.0, history.saving)
    async with running(service_runtime, history, pending) as runner:
        # One after the other, keeping the turn would wait for a save that never begins.
        first = done(await run(runner, "search the tides"))
        token = first["pending_confirmation"]["token"]
        assert history.saves == 1
        saved = await history.messages(first["conversation_id"])
        assert [e["status"] for e in saved[-1]["events"]] == ["pending_confirmation"]
        state = await runner.resume(first["conversation_id"], token)
        last = done([e async for e in runner.run(state, ConfirmationReply(token, True))])
        assert last["text"] == "High at noon."
        assert history.saves == 2
        saved = await history.messages(first["conversation_id"])
        assert [e["status"] for e in saved[-1]["events"]] == ["ok"]


class _DiesOnceTheCallStarted(SQLitePendingTurnStore):
    """A process's paused turns that stops for good once an approved call of ``digest`` was
    recorded as started (before it left): it renews nothing after, as a dead process."""

    def __init__(self, db: StateDB, lease: float, digest: str) -> None:
        super().__init__(db, lease)
        self.digest = digest
        self.dead = asyncio.Event()

    async def checkpoint(self, token: str, state: Any) -> None:
        if self.dead.is_set():
            return
        await super().checkpoint(token, state)
        if state.started is not None and state.started.get("digest") == self.digest:
            self.dead.set()
            await asyncio.Event().wait()  # never returns: cancelled when the test ends


async def test_a_batch_carried_on_after_a_crash_answers_each_card_once_and_never_resends(
    service_runtime: Runtime, fake_model: FakeModel, web: LoopbackWeb, clock: Any
) -> None:
    """Two cards approved in one batch: the first process runs the first call, records the
    second as started and dies. Another process, given the same batch again, does not run
    the first again and tells the second as maybe sent, without sending it."""
    service_runtime.policy.set("web_access_enabled", True)
    fake_model.script(
        tool_calls(
            ("web_search", {"query": "a"}, "c1"),
            ("web_search", {"query": "b"}, "c2"),
            style="openai",
        ),
        text("One found, one maybe sent."),
    )
    db = service_runtime.stores.pending.db  # type: ignore[attr-defined]
    lease = service_runtime.settings.state.lease_seconds
    history = ThreadedHistory(SQLiteHistory(service_runtime.paths.database_file, retention_days=30))
    model = ModelClient(service_runtime.settings.llm)

    def process(pending: SQLitePendingTurnStore) -> ConversationRunner:
        return ConversationRunner(
            service_runtime.executor, model, history, pending, policy=service_runtime.policy
        )

    second = process(SQLitePendingTurnStore(db, lease))
    try:
        cards = done(await run(second, "two searches"))
        a, b = (c["token"] for c in cards["pending_confirmations"])
        conversation = cards["conversation_id"]
        batch = [ConfirmationReply(a, True), ConfirmationReply(b, True)]
        dying = _DiesOnceTheCallStarted(db, lease, token_digest(b))
        first = process(dying)
        state = await first.resume(conversation, [a, b])
        crashed = asyncio.create_task(_drain(first.run(state, batch)))
        await asyncio.wait_for(dying.dead.wait(), timeout=5)
        assert web.hits["/search"] == 1  # the first call ran; the second never left
        clock.now += lease + 1
        state = await second.resume(conversation, [a, b])
        last = done([e async for e in second.run(state, batch)])
        crashed.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await crashed
        assert [(e["status"], e.get("code")) for e in last["events"]] == [
            ("ok", None),
            ("failed", "INTERRUPTED"),
        ]
        assert web.hits["/search"] == 1
        assert last["text"] == "One found, one maybe sent."
    finally:
        await model.aclose()
        await history.close()
        await service_runtime.stores.aclose()


async def _drain(events: Any) -> None:
    async for _ in events:
        pass


class _CannotKeep(SQLitePendingTurnStore):
    """The state file's paused turns, unreachable when a turn is to be kept."""

    async def put(self, paused: PausedTurn, record: PendingRecord | None = None) -> None:
        raise StoreUnavailable("sqlite", "the state file is locked")


async def test_a_round_whose_turn_cannot_be_kept_fails_its_waiting_calls_closed_and_goes_on(
    service_runtime: Runtime, fake_model: FakeModel, web: LoopbackWeb
) -> None:
    service_runtime.policy.set("web_access_enabled", True)
    fake_model.script(
        tool_calls(
            ("web_search", {"query": "a"}, "c1"),
            ("system_health", {}, "c2"),
            ("web_search", {"query": "b"}, "c3"),
            style="openai",
        ),
        text("I could not search."),
    )
    db = service_runtime.stores.pending.db  # type: ignore[attr-defined]
    async with running(service_runtime, NullHistory(), _CannotKeep(db, 30.0)) as runner:
        body = done(await run(runner, "three things"))
    assert body["text"] == "I could not search."
    assert body["pending_confirmations"] == []
    assert [(e["status"], e.get("code")) for e in body["events"]] == [
        ("failed", "STORE_UNAVAILABLE"),
        ("ok", None),
        ("failed", "STORE_UNAVAILABLE"),
    ]
    assert web.hits["/search"] == 0


async def test_the_state_file_keeps_a_paused_round_without_any_card_s_raw_token(
    service: ConversationRunner, service_runtime: Runtime, fake_model: FakeModel, web: LoopbackWeb
) -> None:
    service_runtime.policy.set("web_access_enabled", True)
    fake_model.script(
        tool_calls(
            ("web_search", {"query": "a"}, "c1"),
            ("web_search", {"query": "b"}, "c2"),
            style="openai",
        ),
        text("Both."),
    )
    first = done(await run(service, "two searches"))
    tokens = [c["token"] for c in first["pending_confirmations"]]
    db = service_runtime.stores.pending.db  # type: ignore[attr-defined]
    rows = db.run_blocking(lambda c: c.execute("SELECT digest, state FROM paused_turns").fetchall())
    assert [row[0] for row in rows] == [token_digest(tokens[0])]  # kept once
    kept = " ".join(str(value) for row in rows for value in row)
    assert not [t for t in tokens if t in kept]
    # Yet whoever answers the first card is shown the second after it.
    state = await service.resume(first["conversation_id"], tokens[0])
    second = done([e async for e in service.run(state, ConfirmationReply(tokens[0], True))])
    assert second["pending_confirmation"]["token"] == tokens[1]
