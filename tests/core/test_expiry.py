"""Expired confirmation cards: each audited exactly once, whichever process notices it."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from spyglass.core.audit import AuditLog
from spyglass.core.confirmation import (
    TOKEN_TTL_SECONDS,
    Binding,
    InMemoryConfirmationStore,
    PendingRecord,
)
from spyglass.core.executor import Executor
from spyglass.core.expiry import ExpirySweep
from spyglass.core.policy import WEB_ACCESS, PolicyFile
from spyglass.core.registry import Registry
from spyglass.settings import Settings
from tests.support import capabilities as fixtures
from tests.support.executor import Clock, Harness, audit_events
from tests.support.stores import LiveStores


def test_a_confirmation_nobody_answers_is_audited_once_as_expired(harness: Harness) -> None:
    pending = harness.executor.invoke("test.echo", None, {"text": "a"}, channel="console")
    assert asyncio.run(harness.executor.sweep_expired()) == 0
    harness.clock.now += TOKEN_TTL_SECONDS + 1
    assert asyncio.run(harness.executor.sweep_expired()) == 1
    assert asyncio.run(harness.executor.sweep_expired()) == 0
    expiry = harness.events()[-1]
    assert (expiry["stage"], expiry["outcome"], expiry["code"]) == (
        "confirm",
        "denied",
        "CONFIRMATION_EXPIRED",
    )
    assert expiry["invocation_id"] == pending.invocation_id
    assert (expiry["capability"], expiry["channel"]) == ("test.echo", "console")
    assert len(harness.events()) == 2


@pytest.mark.parametrize("swept_first", [False, True])
@pytest.mark.parametrize("approve", [True, False])
def test_a_late_answer_audits_the_expiry_and_itself_whoever_notices_first(
    harness: Harness, swept_first: bool, approve: bool
) -> None:
    pending = harness.executor.invoke("test.echo", None, {"text": "a"}, channel="t")
    token = pending.pending_confirmation.token
    harness.clock.now += TOKEN_TTL_SECONDS + 1
    if swept_first:
        asyncio.run(harness.executor.sweep_expired())
    if approve:
        late = harness.executor.invoke(
            "test.echo", None, {"text": "a"}, channel="t", confirmation_token=token
        )
    else:
        late = harness.executor.deny(token, channel="t")
    codes = [e["code"] for e in harness.events()[1:]]
    assert late.status == "denied" and late.error.reason == "expired"
    assert codes == ["CONFIRMATION_EXPIRED", "INVALID_CONFIRMATION"]
    asyncio.run(harness.executor.sweep_expired())
    assert len(harness.events()) == 3


def test_an_answer_refused_by_a_front_end_is_one_event_and_consumes_nothing(
    harness: Harness,
) -> None:
    pending = harness.executor.invoke("test.echo", None, {"text": "a"}, channel="t")
    refused = asyncio.run(
        harness.executor.refuse_confirmation(channel="console", reason="conversation")
    )
    assert (refused.status, refused.error.code) == ("rejected", "INVALID_CONFIRMATION")
    event = harness.events()[-1]
    assert (event["stage"], event["capability"], event["channel"]) == ("confirm", None, "console")
    assert len(harness.store) == 1  # the rightful answer can still come
    token = pending.pending_confirmation.token
    done = harness.executor.invoke(
        "test.echo", None, {"text": "a"}, channel="t", confirmation_token=token
    )
    assert done.ok


def _web_on(tmp_path: Path) -> tuple[PolicyFile, AuditLog, Path]:
    """Web access on in a policy file, and an audit log, both shared by every process."""
    policy = PolicyFile(tmp_path / "policy.json")
    policy.set(WEB_ACCESS, True)
    audit_path = tmp_path / "audit.jsonl"
    return policy, AuditLog(audit_path), audit_path


def _executor_on(live: LiveStores, confirmations: Any, audit: AuditLog, policy: Any) -> Executor:
    """An executor as another process has one: its own memory, the shared stores."""
    return Executor(
        Registry([fixtures.make()]),
        settings=Settings(),
        policy=policy,
        audit=audit,
        confirmations=confirmations,
        delegated_channels=frozenset(),
        clock=live.clock,
    )


async def test_a_card_issued_by_a_process_that_is_gone_is_audited_as_expired_exactly_once(
    live: LiveStores, tmp_path: Path
) -> None:
    policy, audit, audit_path = _web_on(tmp_path)
    issuer = _executor_on(live, live.confirmations, audit, policy)
    pending = await issuer.ainvoke("test.echo", None, {"text": "a"}, channel="mcp")
    assert pending.status == "pending_confirmation"
    del issuer  # the process that issued the card is gone; its memory with it
    others = [_executor_on(live, live.other().confirmations, audit, policy) for _ in range(3)]
    assert sum(await asyncio.gather(*(e.sweep_expired() for e in others))) == 0
    live.clock.now += TOKEN_TTL_SECONDS + 1
    swept = await asyncio.gather(*(e.sweep_expired() for e in others for _ in range(4)))
    assert sum(swept) == 1
    events = audit_events(audit_path)
    expired = [e for e in events if e["code"] == "CONFIRMATION_EXPIRED"]
    assert len(expired) == 1
    assert expired[0]["invocation_id"] == pending.invocation_id
    assert (expired[0]["capability"], expired[0]["channel"]) == ("test.echo", "mcp")
    # A late answer, at yet another process, hears "expired" and is not a second expiry.
    token = pending.pending_confirmation.token
    late = await others[0].ainvoke(
        "test.echo", None, {"text": "a"}, channel="mcp", confirmation_token=token
    )
    assert late.status == "denied" and late.error.reason == "expired"
    codes = [e["code"] for e in audit_events(audit_path)]
    assert codes.count("CONFIRMATION_EXPIRED") == 1
    assert codes[-1] == "INVALID_CONFIRMATION"


async def test_a_late_answer_elsewhere_audits_the_expiry_once_and_a_sweep_adds_nothing(
    live: LiveStores, tmp_path: Path
) -> None:
    policy, audit, audit_path = _web_on(tmp_path)
    issuer = _executor_on(live, live.confirmations, audit, policy)
    pending = await issuer.ainvoke("test.echo", None, {"text": "a"}, channel="console")
    other = _executor_on(live, live.other().confirmations, audit, policy)
    live.clock.now += TOKEN_TTL_SECONDS + 1
    denied = await other.adeny(pending.pending_confirmation.token, channel="console")
    assert denied.error is not None and denied.error.reason == "expired"
    assert await issuer.sweep_expired() == 0 and await other.sweep_expired() == 0
    codes = [e["code"] for e in audit_events(audit_path)]
    assert codes[1:] == ["CONFIRMATION_EXPIRED", "INVALID_CONFIRMATION"]


class CountingStore(InMemoryConfirmationStore):
    """The in-process store, counting how often a sweep asks it."""

    def __init__(self, clock: Clock) -> None:
        super().__init__(clock=clock)
        self.claims = 0

    async def claim_expired(self, now: float, limit: int) -> list[Any]:
        self.claims += 1
        return await super().claim_expired(now, limit)


def test_calls_ask_the_store_for_expired_cards_at_most_once_a_second(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    h.policy.set(WEB_ACCESS, True)
    store = CountingStore(h.clock)
    h.executor.confirmations = store
    for _ in range(5):
        h.executor.invoke("test.echo", None, {"text": "a"}, channel="t")
    assert store.claims == 1
    h.clock.now += 1.5
    h.executor.invoke("test.echo", None, {"text": "a"}, channel="t")
    assert store.claims == 2
    # An explicit sweep (the service's timer) always asks.
    asyncio.run(h.executor.sweep_expired())
    assert store.claims == 3


async def test_a_sweep_on_its_own_audits_a_card_past_its_time_once(tmp_path: Path) -> None:
    clock = Clock()
    store = InMemoryConfirmationStore(clock)
    audit_path = tmp_path / "audit.jsonl"
    sweep = ExpirySweep(Registry([fixtures.make()]), store, AuditLog(audit_path), clock)
    binding = Binding("test.echo", 1, "{}", None)
    await store.put(PendingRecord("token", binding, "invocation", clock() + 10, channel="mcp"))
    assert await sweep.sweep_expired() == 0
    clock.now += 11
    assert await sweep.sweep_due() == 1
    assert await sweep.sweep_expired() == 0
    [event] = audit_events(audit_path)
    assert (event["code"], event["channel"], event["invocation_id"]) == (
        "CONFIRMATION_EXPIRED",
        "mcp",
        "invocation",
    )
