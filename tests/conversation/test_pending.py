"""Stores of paused turns, in every backend: taken once, by their own conversation, in time;
claimed under a lease when shared."""

from __future__ import annotations

import pytest

from spyglass.conversation.pending import (
    RECALL_SECONDS,
    PausedTurn,
    TurnBusy,
    TurnState,
    WaitingCard,
)
from spyglass.conversation.stored import state_to_json
from spyglass.core.confirmation import Binding, PendingRecord, token_digest
from spyglass.core.context import Turn
from spyglass.llm.toolcalls import ToolCall
from tests.support.stores import LiveStores


def paused(token: str, conversation: str, expires_at: float) -> PausedTurn:
    state = TurnState(
        conversation_id=conversation, turn_id="t", messages=[], turn=Turn(conversation)
    )
    return PausedTurn(token, state, expires_at)


async def test_a_paused_turn_is_taken_once(live: LiveStores) -> None:
    await live.pending.put(paused("tok", "c1", 1100))
    assert await live.pending.take("tok", "c1") is not None
    await live.pending.finish("tok")
    assert await live.pending.take("tok", "c1") is None


async def test_a_foreign_conversation_cannot_take_it_and_it_stays_for_its_owner(
    live: LiveStores,
) -> None:
    await live.pending.put(paused("tok", "c1", 1100))
    assert await live.pending.take("tok", "c2") is None
    assert await live.pending.take("tok", "c1") is not None


async def test_an_expired_turn_is_still_given_back_for_a_while_so_a_late_answer_can_finish_it(
    live: LiveStores,
) -> None:
    await live.pending.put(paused("tok", "c1", 1100))
    live.clock.now = 1100 + RECALL_SECONDS
    assert await live.pending.take("tok", "c1") is not None


async def test_a_turn_expired_longer_than_that_is_not_given_back(live: LiveStores) -> None:
    await live.pending.put(paused("tok", "c1", 1100))
    live.clock.now = 1101 + RECALL_SECONDS
    assert await live.pending.take("tok", "c1") is None


def waiting_for(state: TurnState, *tokens: str) -> None:
    """``state`` paused at one card per token, in that order."""
    for index, token in enumerate(tokens):
        digest = token_digest(token)
        arguments = {"query": f"query {index}"}
        card = {"capability": "web.search", "version": 1, "arguments": arguments}
        state.waiting.append(WaitingCard(index, digest, card, 1100))
        state.tokens[digest] = token
        state.queue.append(ToolCall(f"call_{index}", "web_search", arguments))
        state.events.append({"type": "tool", "status": "pending_confirmation"})


async def test_the_whole_turn_comes_back_as_it_was_put(live: LiveStores) -> None:
    original = paused("tok", "c1", 1100)
    state = original.state
    state.messages = [{"role": "user", "content": "héllo"}]
    state.text, state.rounds = "partial", 2
    waiting_for(state, "tok", "second-token")
    state.turn.counts["web.search"] = 1
    state.citations.add("https://example.org/", "Example")
    await live.pending.put(original)
    taken = await live.pending.take("tok", "c1")
    assert taken is not None
    assert state_to_json(taken.state) == state_to_json(state)
    # Every card's token comes back to whoever presents the token the turn is kept by.
    assert taken.state.tokens == state.tokens


async def test_a_claimed_turn_is_busy_for_another_process_until_its_lease_lapses(
    live: LiveStores,
) -> None:
    other = live.other(lease=30)
    mine = live.other(lease=30)
    await mine.pending.put(paused("tok", "c1", 1100))
    assert await mine.pending.take("tok", "c1") is not None
    with pytest.raises(TurnBusy) as busy:
        await other.pending.take("tok", "c1")
    assert 0 < busy.value.retry_after <= 30
    # The holder dies without finishing: after the lease another process carries it on,
    # even though the approval's own expiry has passed by then.
    live.clock.now += 200
    again = await other.pending.take("tok", "c1")
    assert again is not None


async def test_a_checkpoint_is_what_the_next_process_carries_on_from(live: LiveStores) -> None:
    first, second = live.other(lease=10), live.other(lease=10)
    await first.pending.put(paused("tok", "c1", 1100))
    taken = await first.pending.take("tok", "c1")
    assert taken is not None
    taken.state.text = "progress"
    await first.pending.checkpoint("tok", taken.state)
    live.clock.now += 11
    resumed = await second.pending.take("tok", "c1")
    assert resumed is not None
    assert (resumed.state.text, resumed.state.waiting) == ("progress", [])
    # The first process, late, can neither overwrite nor finish what it no longer holds.
    await first.pending.checkpoint("tok", taken.state)
    await first.pending.finish("tok")
    with pytest.raises(TurnBusy):
        await first.pending.take("tok", "c1")
    await second.pending.finish("tok")
    live.clock.now += 11
    assert await first.pending.take("tok", "c1") is None


def record(token: str, conversation: str, expires_at: float) -> PendingRecord:
    binding = Binding("web.search", 1, '{"query":"x"}', conversation)
    return PendingRecord(token, binding, "inv-1", expires_at, channel="console")


async def test_a_store_shares_only_its_own_backend_s_token_store(live: LiveStores) -> None:
    assert live.pending.shares(live.confirmations)
    if live.name != "memory":
        assert not live.pending.shares(live.other().confirmations)


async def test_a_turn_kept_with_its_token_gives_both_back_in_one_claim(live: LiveStores) -> None:
    await live.pending.put(paused("tok", "c1", 1100), record("tok", "c1", 1100))
    claimed = await live.pending.take("tok", "c1", with_token=True)
    assert claimed is not None and claimed.taken is not None
    assert claimed.taken.record == record("tok", "c1", 1100)
    # The token is spent by that claim: taken once, whoever asks next.
    assert await live.confirmations.take("tok") is None


async def test_a_turn_kept_with_its_token_leaves_the_token_to_be_taken_alone(
    live: LiveStores,
) -> None:
    await live.pending.put(paused("tok", "c1", 1100), record("tok", "c1", 1100))
    assert await live.confirmations.take("tok") == record("tok", "c1", 1100)
    claimed = await live.pending.take("tok", "c1", with_token=True)
    assert claimed is not None and claimed.taken is not None
    assert claimed.taken.record is None  # answered already: nothing to take twice


async def test_a_claim_by_another_conversation_leaves_the_token_where_it_is(
    live: LiveStores,
) -> None:
    await live.pending.put(paused("tok", "c1", 1100), record("tok", "c1", 1100))
    assert await live.pending.take("tok", "c2", with_token=True) is None
    assert await live.confirmations.take("tok") == record("tok", "c1", 1100)


async def test_a_busy_turn_leaves_its_token_to_the_process_that_holds_it(
    live: LiveStores,
) -> None:
    mine, other = live.other(lease=30), live.other(lease=30)
    await mine.pending.put(paused("tok", "c1", 1100), record("tok", "c1", 1100))
    assert await mine.pending.take("tok", "c1") is not None
    with pytest.raises(TurnBusy):
        await other.pending.take("tok", "c1", with_token=True)
    assert await mine.confirmations.take("tok") == record("tok", "c1", 1100)


async def test_a_taken_token_knows_a_sweep_audited_its_expiry(live: LiveStores) -> None:
    await live.pending.put(paused("tok", "c1", 1100), record("tok", "c1", 1100))
    live.clock.now = 1101
    assert len(await live.confirmations.claim_expired(1101, 10)) == 1
    claimed = await live.pending.take("tok", "c1", with_token=True)
    assert claimed is not None and claimed.taken is not None
    assert claimed.taken.record is not None and claimed.taken.record.expiry_audited


async def test_an_approval_taken_with_a_turn_goes_to_whoever_carries_the_turn_on(
    live: LiveStores,
) -> None:
    first, second = live.other(lease=10), live.other(lease=10)
    await first.pending.put(paused("tok", "c1", 1100), record("tok", "c1", 1100))
    taken = await first.pending.take("tok", "c1", with_token=True)
    assert taken is not None and taken.taken is not None and taken.taken.record is not None
    # The first process dies before the call started: its approval is not lost with it.
    live.clock.now += 11
    carried = await second.pending.take("tok", "c1", with_token=True)
    assert carried is not None and carried.taken is not None
    assert carried.taken.record is not None
    assert carried.taken.record.invocation_id == "inv-1"
    # The token itself is still spent: nothing else can answer with it.
    assert await second.confirmations.take("tok") is None
