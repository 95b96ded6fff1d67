"""The confirm stage: a call waits with its exact arguments; a token approves that call once,
in that conversation, before it expires; a denial spends it; delegated channels and local
read-only capabilities need none."""

from __future__ import annotations

from pathlib import Path

from spyglass.core.actor import Actor
from spyglass.core.answers import Answers
from spyglass.core.attempt import Attempt
from spyglass.core.audit import AuditLog
from spyglass.core.capability import Network, SideEffect
from spyglass.core.confirmation import TOKEN_TTL_SECONDS, InMemoryConfirmationStore
from spyglass.core.context import Turn
from spyglass.core.expiry import ExpirySweep
from spyglass.core.policy import WEB_ACCESS
from spyglass.core.registry import Registry
from tests.support import capabilities as fixtures
from tests.support.executor import Clock, Harness


def test_external_call_without_token_returns_pending_with_literal_arguments(
    harness: Harness,
) -> None:
    arguments = {"text": "exact   words, not a paraphrase"}
    outcome = harness.executor.invoke("test.echo", 1, arguments, channel="test")
    assert outcome.status == "pending_confirmation"
    pending = outcome.pending_confirmation
    assert pending.arguments == arguments
    assert pending.expires_in_seconds == TOKEN_TTL_SECONDS
    assert len(pending.token) >= 22  # at least 128 bits, URL-safe
    assert outcome.result is None


def test_approved_call_executes_once_with_the_pending_invocation_id(harness: Harness) -> None:
    pending = harness.executor.invoke("test.echo", 1, {"text": "hi"}, channel="test")
    token = pending.pending_confirmation.token
    outcome = harness.executor.invoke(
        "test.echo", 1, {"text": "hi"}, channel="test", confirmation_token=token
    )
    assert outcome.status == "ok" and outcome.result == {"echo": "hi"}
    assert outcome.invocation_id == pending.invocation_id
    again = harness.executor.invoke(
        "test.echo", 1, {"text": "hi"}, channel="test", confirmation_token=token
    )
    assert (again.status, again.error.code, again.error.reason) == (
        "rejected",
        "INVALID_CONFIRMATION",
        "unknown",
    )
    events = harness.events()
    assert [e["outcome"] for e in events] == ["pending_confirmation", "ok", "rejected"]
    assert events[1]["confirmed_by"] == "owner"


def test_token_for_other_arguments_is_rejected_and_spent(harness: Harness) -> None:
    pending = harness.executor.invoke("test.echo", 1, {"text": "safe"}, channel="test")
    token = pending.pending_confirmation.token
    swapped = harness.executor.invoke(
        "test.echo", 1, {"text": "other"}, channel="test", confirmation_token=token
    )
    assert (swapped.stage, swapped.error.code, swapped.error.reason) == (
        "confirm",
        "INVALID_CONFIRMATION",
        "mismatch",
    )
    retry = harness.executor.invoke(
        "test.echo", 1, {"text": "safe"}, channel="test", confirmation_token=token
    )
    assert retry.error.reason == "unknown"


def test_token_for_another_capability_is_rejected(tmp_path: Path) -> None:
    h = Harness(tmp_path, fixtures.make("test.echo"), fixtures.make("test.other"))
    h.policy.set(WEB_ACCESS, True)
    token = h.executor.invoke("test.echo", 1, {"text": "a"}, channel="t").pending_confirmation.token
    outcome = h.executor.invoke(
        "test.other", 1, {"text": "a"}, channel="t", confirmation_token=token
    )
    assert outcome.error.reason == "mismatch"


def test_expired_token_is_denied(harness: Harness) -> None:
    pending = harness.executor.invoke("test.echo", 1, {"text": "a"}, channel="test")
    harness.clock.now += TOKEN_TTL_SECONDS + 1
    outcome = harness.executor.invoke(
        "test.echo",
        1,
        {"text": "a"},
        channel="test",
        confirmation_token=pending.pending_confirmation.token,
    )
    assert (outcome.status, outcome.error.code, outcome.error.reason) == (
        "denied",
        "INVALID_CONFIRMATION",
        "expired",
    )


def test_forged_token_is_rejected(harness: Harness) -> None:
    outcome = harness.executor.invoke(
        "test.echo", 1, {"text": "a"}, channel="test", confirmation_token="A" * 32
    )
    assert (outcome.status, outcome.stage, outcome.error.reason) == (
        "rejected",
        "confirm",
        "unknown",
    )


def test_token_from_another_conversation_is_rejected(harness: Harness) -> None:
    pending = harness.executor.invoke(
        "test.echo", 1, {"text": "a"}, channel="test", turn=Turn(conversation_id="c1")
    )
    outcome = harness.executor.invoke(
        "test.echo",
        1,
        {"text": "a"},
        channel="test",
        turn=Turn(conversation_id="c2"),
        confirmation_token=pending.pending_confirmation.token,
    )
    assert outcome.error.reason == "conversation"
    # Sent to the wrong conversation, the answer did not use the token up.
    declined = harness.executor.deny(
        pending.pending_confirmation.token, channel="test", conversation_id="c2"
    )
    assert declined.error.reason == "unknown"
    approved = harness.executor.invoke(
        "test.echo",
        1,
        {"text": "a"},
        channel="test",
        turn=Turn(conversation_id="c1"),
        confirmation_token=pending.pending_confirmation.token,
    )
    assert approved.status == "ok"


def test_denial_spends_the_token_and_is_audited_as_denied(harness: Harness) -> None:
    pending = harness.executor.invoke("test.echo", 1, {"text": "a"}, channel="test")
    token = pending.pending_confirmation.token
    denied = harness.executor.deny(token, channel="test")
    assert (denied.status, denied.error.code) == ("denied", "DENIED")
    assert denied.invocation_id == pending.invocation_id
    later = harness.executor.invoke(
        "test.echo", 1, {"text": "a"}, channel="test", confirmation_token=token
    )
    assert later.error.reason == "unknown"
    assert [e["outcome"] for e in harness.events()] == [
        "pending_confirmation",
        "denied",
        "rejected",
    ]


def test_delegated_channel_runs_without_token_and_records_who_confirmed(tmp_path: Path) -> None:
    h = Harness(tmp_path, delegated=frozenset({"mcp"}))
    h.policy.set(WEB_ACCESS, True)
    outcome = h.executor.invoke("test.echo", 1, {"text": "a"}, channel="mcp")
    assert outcome.status == "ok"
    assert h.events()[-1]["confirmed_by"] == "delegated"
    assert h.executor.invoke("test.echo", 1, {"text": "a"}, channel="console").status == (
        "pending_confirmation"
    )


def test_local_read_only_capability_runs_automatically(tmp_path: Path) -> None:
    local = fixtures.make("test.local", network=Network.LOCAL, policy_key=None)
    h = Harness(tmp_path, local)
    outcome = h.executor.invoke("test.local", 1, {"text": "a"}, channel="test")
    assert outcome.status == "ok"
    assert h.events()[-1]["confirmation"] == "automatic"


def test_mutating_local_capability_still_needs_confirmation(tmp_path: Path) -> None:
    mutating = fixtures.make(
        "test.write", network=Network.LOCAL, side_effect=SideEffect.MUTATING, policy_key=None
    )
    h = Harness(tmp_path, mutating)
    assert h.executor.invoke("test.write", 1, {"text": "a"}, channel="t").status == (
        "pending_confirmation"
    )


async def test_answers_on_their_own_leave_another_persons_card_theirs(tmp_path: Path) -> None:
    clock = Clock()
    store = InMemoryConfirmationStore(clock)
    registry = Registry([fixtures.make()])
    expiry = ExpirySweep(registry, store, AuditLog(tmp_path / "audit.jsonl"), clock)
    answers = Answers(registry, store, expiry, clock=clock)
    capability = registry.get("test.echo", 1)
    assert capability is not None
    alice, bob = Actor("alice", "p-alice"), Actor("bob", "p-bob")
    turn = Turn(conversation_id="c")
    card = await answers.issue(Attempt.begin("t", alice), capability, {"text": "a"}, turn, ())
    assert card.pending_confirmation is not None
    token = card.pending_confirmation.token
    declined = await answers.decline(Attempt.begin("t", bob), token, "c")
    assert declined.error is not None and declined.error.reason == "unknown"
    assert len(store) == 1  # still Alice's to answer
    attempt = Attempt.begin("t", alice)
    assert await answers.approve(attempt, capability, {"text": "a"}, turn, token) is None
    assert attempt.invocation_id == card.invocation_id and len(store) == 0
