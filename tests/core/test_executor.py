"""The six-stage pipeline: each stage refuses at exactly that stage; every attempt is audited."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from spyglass.core.capability import Bounds, Network
from spyglass.core.context import Turn
from spyglass.core.outcome import Notice
from spyglass.core.policy import WEB_ACCESS
from spyglass.errors import CapabilityError
from tests.support import capabilities as fixtures
from tests.support.executor import Harness


def test_unknown_capability_is_rejected_at_resolve_and_audited_without_its_name(
    harness: Harness,
) -> None:
    outcome = harness.executor.invoke("web.secret_canary", None, {}, channel="test")
    assert (outcome.status, outcome.stage) == ("rejected", "resolve")
    assert outcome.error and outcome.error.code == "UNKNOWN_CAPABILITY"
    [event] = harness.events()
    assert event["capability"] is None
    assert "canary" not in harness.audit_path.read_text()


def test_unknown_version_is_rejected_at_resolve(harness: Harness) -> None:
    outcome = harness.executor.invoke("test.echo", 2, {"text": "a"}, channel="test")
    assert (outcome.status, outcome.stage, outcome.error.code) == (
        "rejected",
        "resolve",
        "UNKNOWN_CAPABILITY",
    )


@pytest.mark.parametrize(
    ("arguments", "fragment"),
    [
        ({}, "text is required"),
        ({"text": "a", "extra": 1}, "1 unexpected field; allowed fields: count, text"),
        ({"text": 5}, "text must be of type string"),
        ({"text": "x" * 1_000_000}, "text must be at most 200 characters"),
        ({"text": "a", "count": 9}, "count must be at most 5"),
        ("not an object", "arguments must be a JSON object"),
        ([1, 2], "arguments must be a JSON object"),
    ],
)
def test_bad_arguments_are_rejected_at_validate_naming_the_field(
    harness: Harness, arguments: Any, fragment: str
) -> None:
    outcome = harness.executor.invoke("test.echo", 1, arguments, channel="test")
    assert (outcome.status, outcome.stage) == ("rejected", "validate")
    assert outcome.error.code == "INVALID_ARGUMENTS"
    assert fragment in outcome.error.message
    assert len(outcome.error.message) < 300


@pytest.mark.parametrize(
    ("arguments", "fragment"),
    [
        ({"text": "\ud800"}, "text is not valid text"),
        ({"text": "a\udfffb", "count": 1}, "text is not valid text"),
        ({"text": "a", "\ud800": 1}, "an argument name is not valid text"),
        ({"text": "a", "canary_name_0xq": 1}, "1 unexpected field"),
    ],
)
def test_unencodable_strings_are_refused_at_validate_before_any_token_without_echo(
    harness: Harness, arguments: dict[str, Any], fragment: str
) -> None:
    outcome = harness.executor.invoke("test.echo", 1, arguments, channel="test")
    assert (outcome.status, outcome.stage) == ("rejected", "validate")
    assert outcome.error is not None and outcome.error.code == "INVALID_ARGUMENTS"
    assert fragment in outcome.error.message
    assert "canary_name" not in outcome.error.message
    # The whole outcome can be sent as UTF-8 JSON: nothing unencodable was echoed.
    json.dumps(outcome.to_dict()).encode("utf-8")
    outcome.error.message.encode("utf-8")
    assert len(harness.store) == 0


def test_unknown_capability_name_that_cannot_be_encoded_is_rejected_readably(
    harness: Harness,
) -> None:
    outcome = harness.executor.invoke("web.\ud800x", None, {}, channel="test")
    assert outcome.error is not None and outcome.error.code == "UNKNOWN_CAPABILITY"
    outcome.error.message.encode("utf-8")
    outcome.capability.encode("utf-8")


def test_result_with_an_unencodable_string_fails_as_invalid_result(tmp_path: Path) -> None:
    async def broken(context: Any) -> dict[str, Any]:
        return {"echo": "bad \udc80 text"}

    h = Harness(tmp_path, fixtures.make(handler=broken, network=Network.LOCAL, policy_key=None))
    outcome = h.executor.invoke("test.echo", 1, {"text": "a"}, channel="test")
    assert outcome.error is not None and outcome.error.code == "INVALID_RESULT"


def test_deeply_nested_arguments_are_rejected_without_recursion_errors(
    harness: Harness,
) -> None:
    nested: Any = "leaf"
    for _ in range(100_000):
        nested = {"a": nested}
    outcome = harness.executor.invoke("test.echo", 1, {"text": "a", "x": nested}, channel="test")
    assert (outcome.stage, outcome.error.code) == ("validate", "INVALID_ARGUMENTS")


def test_timeout_cancels_the_work_and_fails_with_timeout(tmp_path: Path) -> None:
    slow = fixtures.make(
        "test.slow",
        network=Network.LOCAL,
        policy_key=None,
        handler=fixtures.hang,
        bounds=Bounds(timeout_seconds=0.05),
    )
    h = Harness(tmp_path, slow)
    turn = Turn()
    outcome = h.executor.invoke("test.slow", 1, {"text": "a"}, channel="t", turn=turn)
    assert (outcome.status, outcome.error.code, outcome.error.retryable) == (
        "failed",
        "TIMEOUT",
        True,
    )
    assert turn.cache == {"started": True, "cancelled": True}


def test_result_over_the_byte_bound_fails_as_too_large(tmp_path: Path) -> None:
    big = fixtures.make(
        "test.big",
        network=Network.LOCAL,
        policy_key=None,
        handler=fixtures.returning({"echo": "é" * 600}),
        bounds=Bounds(timeout_seconds=5, max_result_bytes=1000),
    )
    h = Harness(tmp_path, big)
    outcome = h.executor.invoke("test.big", 1, {"text": "a"}, channel="t")
    # 600 two-byte characters: under 1000 characters but over 1000 bytes once serialised.
    assert (outcome.status, outcome.error.code) == ("failed", "RESULT_TOO_LARGE")
    assert h.events()[-1]["result_bytes"] > 1000


def test_result_that_breaks_its_schema_is_never_passed_on(tmp_path: Path) -> None:
    wrong = fixtures.make(
        "test.wrong",
        network=Network.LOCAL,
        policy_key=None,
        handler=fixtures.returning({"echo": 1, "leak": "secret"}),
    )
    h = Harness(tmp_path, wrong)
    outcome = h.executor.invoke("test.wrong", 1, {"text": "a"}, channel="t")
    assert (outcome.status, outcome.error.code, outcome.result) == (
        "failed",
        "INVALID_RESULT",
        None,
    )


def test_unexpected_exception_becomes_a_safe_execution_failure(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    broken = fixtures.make(
        "test.broken",
        network=Network.LOCAL,
        policy_key=None,
        handler=fixtures.raising(RuntimeError("db password hunter2")),
    )
    h = Harness(tmp_path, broken)
    outcome = h.executor.invoke("test.broken", 1, {"text": "a"}, channel="t")
    assert (outcome.status, outcome.error.code) == ("failed", "EXECUTION_FAILED")
    assert "hunter2" not in outcome.to_json()
    assert "Traceback" not in outcome.to_json()
    assert "hunter2" in caplog.text  # the traceback goes to the log instead


def test_capability_error_becomes_a_structured_outcome(tmp_path: Path) -> None:
    refusing = fixtures.make(
        "test.refuse",
        network=Network.LOCAL,
        policy_key=None,
        handler=fixtures.raising(
            CapabilityError(
                "FETCH_TARGET_REJECTED", "refused", reason="private_address", status="rejected"
            )
        ),
    )
    h = Harness(tmp_path, refusing)
    outcome = h.executor.invoke("test.refuse", 1, {"text": "a"}, channel="t")
    assert outcome.to_dict()["error"] == {
        "code": "FETCH_TARGET_REJECTED",
        "reason": "private_address",
        "message": "refused",
        "retryable": False,
    }
    assert (outcome.status, outcome.stage) == ("rejected", "execute")


def test_turn_limit_refuses_the_extra_call_before_asking_the_owner(tmp_path: Path) -> None:
    h = Harness(
        tmp_path, fixtures.make(bounds=Bounds(timeout_seconds=5, max_invocations_per_turn=1))
    )
    h.policy.set(WEB_ACCESS, True)
    turn = Turn()
    assert h.approve("test.echo", {"text": "a"}, turn=turn).status == "ok"
    second = h.executor.invoke("test.echo", 1, {"text": "b"}, channel="test", turn=turn)
    assert (second.status, second.error.code) == ("rejected", "TURN_LIMIT_EXCEEDED")
    assert len(h.store) == 0
    assert h.executor.invoke("test.echo", 1, {"text": "b"}, channel="t").status == (
        "pending_confirmation"
    )  # a new turn starts afresh


def test_every_attempt_writes_exactly_one_audit_event(harness: Harness) -> None:
    harness.executor.invoke("nope", None, {}, channel="t")
    harness.executor.invoke("test.echo", 1, {}, channel="t")
    harness.approve("test.echo", {"text": "a"})
    assert len(harness.events()) == 4
    assert {e["channel"] for e in harness.events()} == {"t", "test"}


def _session(h: Harness) -> list[Any]:
    """Refused by policy, refused at validate, asked, approved and run, asked and declined."""
    h.policy.set(WEB_ACCESS, False)
    outcomes = [h.executor.invoke("test.echo", 1, {"text": "a"}, channel="t")]
    h.policy.set(WEB_ACCESS, True)
    outcomes.append(h.executor.invoke("test.echo", 1, {"text": 5}, channel="t"))
    outcomes.append(h.approve("test.echo", {"text": "a"}))
    pending = h.executor.invoke("test.echo", 1, {"text": "b"}, channel="t")
    outcomes += [pending, h.executor.deny(pending.pending_confirmation.token, channel="t")]
    return outcomes


def _comparable(data: Any) -> Any:
    # What differs between any two runs: ids, tokens, times.
    if isinstance(data, dict):
        return {
            k: _comparable(v)
            for k, v in data.items()
            if k not in {"invocation_id", "event_id", "token", "expires_at", "ts", "duration_ms"}
        }
    if isinstance(data, list):
        return [_comparable(v) for v in data]
    return data


async def test_async_invoke_runs_on_the_callers_loop(harness: Harness) -> None:
    pending = await harness.executor.ainvoke("test.echo", 1, {"text": "a"}, channel="t")
    outcome = await harness.executor.ainvoke(
        "test.echo",
        1,
        {"text": "a"},
        channel="t",
        confirmation_token=pending.pending_confirmation.token,
    )
    assert outcome.result == {"echo": "a"}


async def test_fifty_concurrent_approvals_of_one_token_execute_once(tmp_path: Path) -> None:
    runs: list[int] = []

    async def counting(context: Any) -> dict[str, str]:
        runs.append(1)
        await asyncio.sleep(0)
        return {"echo": "x"}

    h = Harness(
        tmp_path,
        fixtures.make(
            handler=counting, bounds=Bounds(timeout_seconds=5, max_invocations_per_turn=100)
        ),
    )
    h.policy.set(WEB_ACCESS, True)
    pending = await h.executor.ainvoke("test.echo", 1, {"text": "a"}, channel="t")
    token = pending.pending_confirmation.token
    outcomes = await asyncio.gather(
        *(
            h.executor.ainvoke("test.echo", 1, {"text": "a"}, channel="t", confirmation_token=token)
            for _ in range(50)
        )
    )
    assert [o.status for o in outcomes].count("ok") == 1
    assert len(runs) == 1


async def _refuse_canary(context: Any) -> list[Notice]:
    if "canary" in context.arguments["text"]:
        raise CapabilityError("TEST_REFUSED", "this text cannot be sent", status="rejected")
    return [Notice("test.note", "goes somewhere", argument="text", start=0, end=1)]


def test_precheck_refusal_happens_before_any_confirmation_is_issued(tmp_path: Path) -> None:
    h = Harness(tmp_path, fixtures.make(precheck=_refuse_canary))
    h.policy.set(WEB_ACCESS, True)
    outcome = h.executor.invoke("test.echo", 1, {"text": "canary"}, channel="test")
    assert (outcome.status, outcome.stage, outcome.error.code) == (
        "rejected",
        "check",
        "TEST_REFUSED",
    )
    assert len(h.store) == 0
    [event] = h.events()
    assert (event["stage"], event["code"]) == ("check", "TEST_REFUSED")
    assert "canary" not in h.audit_path.read_text()


def test_precheck_notices_travel_with_the_pending_confirmation(tmp_path: Path) -> None:
    h = Harness(tmp_path, fixtures.make(precheck=_refuse_canary))
    h.policy.set(WEB_ACCESS, True)
    outcome = h.executor.invoke("test.echo", 1, {"text": "hello"}, channel="test")
    assert outcome.status == "pending_confirmation"
    assert outcome.to_dict()["pending_confirmation"]["notices"] == [
        {"kind": "test.note", "message": "goes somewhere", "argument": "text", "start": 0, "end": 1}
    ]


def test_precheck_refuses_on_a_delegated_channel_too(tmp_path: Path) -> None:
    h = Harness(tmp_path, fixtures.make(precheck=_refuse_canary), delegated=frozenset({"host"}))
    h.policy.set(WEB_ACCESS, True)
    outcome = h.executor.invoke("test.echo", 1, {"text": "canary"}, channel="host")
    assert (outcome.status, outcome.stage) == ("rejected", "check")
    assert h.executor.invoke("test.echo", 1, {"text": "fine"}, channel="host").ok


class HeldAudit:
    """An audit sink that finishes writing an event only when the test lets it."""

    def __init__(self) -> None:
        self.written: list[dict[str, Any]] = []
        self.asked = asyncio.Event()
        self.release = asyncio.Event()

    def record(self, event: Any) -> None:
        self.written.append(dict(event))

    async def arecord(self, event: Any) -> None:
        self.asked.set()
        await self.release.wait()
        self.record(event)


async def test_an_answer_is_returned_only_once_its_audit_event_is_written(
    tmp_path: Path,
) -> None:
    harness = Harness(tmp_path)
    harness.policy.set(WEB_ACCESS, True)
    audit = HeldAudit()
    harness.executor.audit = audit
    call = asyncio.ensure_future(
        harness.executor.ainvoke("test.echo", 1, {"text": "a"}, channel="test")
    )
    await asyncio.wait_for(audit.asked.wait(), 10)
    assert not call.done()
    audit.release.set()
    outcome = await asyncio.wait_for(call, 10)
    assert [e["invocation_id"] for e in audit.written] == [outcome.invocation_id]
