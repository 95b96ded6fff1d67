"""Tokens are unguessable, single use and taken atomically — in every store backend."""

from __future__ import annotations

import asyncio
import json

from spyglass.core.confirmation import (
    TOKEN_TTL_SECONDS,
    Binding,
    InMemoryConfirmationStore,
    PendingRecord,
    canonical_json,
    new_token,
    record_from_json,
    record_to_json,
    token_digest,
)
from tests.support.stores import LiveStores


def _record(token: str, expires_at: float = 1100.0) -> PendingRecord:
    return PendingRecord(
        token,
        Binding("web.search", 1, canonical_json({"q": 1}), "conv"),
        "inv",
        expires_at,
        channel="console",
    )


def test_tokens_are_url_safe_and_carry_at_least_128_bits() -> None:
    tokens = {new_token() for _ in range(1000)}
    assert len(tokens) == 1000
    for token in tokens:
        assert len(token) * 6 >= 128
        assert set(token) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


def test_canonical_json_does_not_depend_on_key_order_or_spacing() -> None:
    assert canonical_json({"b": 1, "a": "é"}) == canonical_json({"a": "é", "b": 1})
    assert canonical_json({"a": "é"}) == '{"a":"é"}'


def test_a_stored_record_holds_the_binding_but_never_the_token() -> None:
    record = _record("secret-token")
    text = record_to_json(record)
    assert "secret-token" not in text
    assert record_from_json("secret-token", text) == record
    assert token_digest("secret-token") != token_digest("secret-tokeN")


def test_a_record_stored_before_records_were_versioned_still_loads() -> None:
    # As a state file or Redis kept it before the schema version (and, older still, before
    # accounts and channels): no "schema", "account_id" or "channel".
    old = (
        '{"capability":"web.search","version":1,"arguments":"{\\"query\\":\\"x\\"}",'
        '"conversation_id":"c1","invocation_id":"inv","expires_at":1700000000}'
    )
    record = record_from_json("tok", old)
    assert record.binding == Binding("web.search", 1, '{"query":"x"}', "c1", None)
    assert (record.invocation_id, record.expires_at, record.channel) == ("inv", 1.7e9, "")
    assert json.loads(record_to_json(record))["schema"] == 1


async def test_a_token_can_be_taken_only_once(live: LiveStores) -> None:
    record = _record("t1")
    await live.confirmations.put(record)
    assert await live.confirmations.take("t1") == record
    assert await live.confirmations.take("t1") is None
    assert await live.confirmations.take("never-issued") is None


async def test_fifty_concurrent_takes_of_one_token_get_exactly_one_record(
    live: LiveStores,
) -> None:
    await live.confirmations.put(_record("race"))
    results = await asyncio.gather(*(live.confirmations.take("race") for _ in range(50)))
    assert sum(r is not None for r in results) == 1


async def test_two_processes_sharing_a_store_take_one_token_once(live: LiveStores) -> None:
    other = live.other()
    await live.confirmations.put(_record("shared"))
    first, second = await asyncio.gather(
        other.confirmations.take("shared"), live.confirmations.take("shared")
    )
    assert [first is None, second is None].count(False) == 1


async def test_an_expired_record_is_still_found_within_the_grace_period(
    live: LiveStores,
) -> None:
    # The executor, not the store, says "expired": the record must still come back.
    await live.confirmations.put(_record("late", expires_at=live.clock.now + 1))
    live.clock.now += 60
    taken = await live.confirmations.take("late")
    assert taken is not None and taken.expires_at < live.clock.now


async def test_expired_records_are_pruned_after_a_grace_period_once_their_expiry_is_claimed() -> (
    None
):
    now = [0.0]
    store = InMemoryConfirmationStore(clock=lambda: now[0])
    await store.put(_record("old", expires_at=TOKEN_TTL_SECONDS))
    await store.put(_record("unswept", expires_at=TOKEN_TTL_SECONDS))
    now[0] = TOKEN_TTL_SECONDS * 3
    assert len(await store.claim_expired(now[0], limit=1)) == 1
    await store.put(_record("new", expires_at=now[0] + TOKEN_TTL_SECONDS))
    # The claimed one is gone; the other is kept until a sweep has audited its expiry too.
    left = {await store.take(t) is not None for t in ("old", "unswept")}
    assert left == {True, False}
    assert await store.take("new") is not None


async def test_an_expired_card_is_claimed_once_with_its_channel_and_without_its_token(
    live: LiveStores,
) -> None:
    await live.confirmations.put(_record("due", expires_at=live.clock.now + 10))
    await live.confirmations.put(_record("later", expires_at=live.clock.now + 500))
    assert await live.confirmations.claim_expired(live.clock.now, 100) == []
    live.clock.now += 11
    [claimed] = await live.confirmations.claim_expired(live.clock.now, 100)
    assert claimed.token == "" and claimed.invocation_id == "inv"
    assert claimed.binding.capability == "web.search" and claimed.channel == "console"
    assert await live.confirmations.claim_expired(live.clock.now, 100) == []
    # A late answer still gets the record (so it hears "expired"), marked as audited.
    late = await live.confirmations.take("due")
    assert late is not None and late.expiry_audited and late.expires_at < live.clock.now
    fresh = await live.confirmations.take("later")
    assert fresh is not None and not fresh.expiry_audited


async def test_an_answered_card_is_never_claimed_and_a_claimed_card_only_once_anywhere(
    live: LiveStores,
) -> None:
    others = [live.other() for _ in range(3)]
    for number in range(30):
        await live.confirmations.put(_record(f"t{number}", expires_at=live.clock.now + 1))
    for number in range(10):
        assert await live.confirmations.take(f"t{number}") is not None
    live.clock.now += 2
    claims = await asyncio.gather(
        *(o.confirmations.claim_expired(live.clock.now, 7) for o in others for _ in range(3))
    )
    assert sum(len(c) for c in claims) == 20
