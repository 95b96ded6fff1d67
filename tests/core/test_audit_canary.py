"""No argument, result or upstream message ever reaches the audit log, whatever the outcome."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from spyglass.core.capability import Bounds, Network
from spyglass.core.context import InvocationContext
from spyglass.core.policy import WEB_ACCESS
from spyglass.errors import CapabilityError
from tests.support import capabilities as fixtures
from tests.support.executor import Harness

CANARY = "CANARY-7f3a9c"

LOOSE: dict[str, Any] = {
    "type": "object",
    "properties": {"text": {"type": "string"}},
    "additionalProperties": False,
}


async def leaky_ok(context: InvocationContext) -> dict[str, Any]:
    context.provider = "fixture"
    return {"echo": f"{CANARY} {context.arguments['text']}"}


async def leaky_error(context: InvocationContext) -> dict[str, Any]:
    raise CapabilityError("FETCH_HTTP_ERROR", f"upstream said {CANARY}", retryable=True)


async def leaky_crash(context: InvocationContext) -> dict[str, Any]:
    raise RuntimeError(f"boom {CANARY}")


async def leaky_invalid(context: InvocationContext) -> dict[str, Any]:
    return {"unexpected": CANARY}


async def leaky_big(context: InvocationContext) -> dict[str, Any]:
    return {"echo": CANARY * 1000}


def test_no_canary_reaches_the_audit_file_for_any_outcome(tmp_path: Path) -> None:
    caps = [
        fixtures.make("test.ok", handler=leaky_ok, argument_schema=LOOSE),
        fixtures.make("test.err", handler=leaky_error, argument_schema=LOOSE),
        fixtures.make("test.crash", handler=leaky_crash, argument_schema=LOOSE),
        fixtures.make("test.invalid", handler=leaky_invalid, argument_schema=LOOSE),
        fixtures.make(
            "test.big",
            handler=leaky_big,
            argument_schema=LOOSE,
            bounds=Bounds(timeout_seconds=5, max_result_bytes=100),
        ),
        fixtures.make(
            "test.slow",
            handler=fixtures.hang,
            argument_schema=LOOSE,
            network=Network.LOCAL,
            policy_key=None,
            bounds=Bounds(timeout_seconds=0.05),
        ),
    ]
    h = Harness(tmp_path, *caps)
    args = {"text": CANARY}
    h.executor.invoke(f"test.{CANARY}", None, args, channel="t")  # unknown name
    for cap in caps:
        h.executor.invoke(cap.name, 1, {"text": CANARY, CANARY: 1}, channel="t")  # invalid
        h.executor.invoke(cap.name, 1, args, channel="t")  # policy off (or runs, if local)
    h.policy.set(WEB_ACCESS, True)
    for cap in caps:
        h.executor.invoke(cap.name, 1, args, channel="t", confirmation_token=CANARY)
        pending = h.executor.invoke(cap.name, 1, args, channel="t")
        if pending.pending_confirmation:
            h.executor.invoke(
                cap.name,
                1,
                args,
                channel="t",
                confirmation_token=pending.pending_confirmation.token,
            )
            denied = h.executor.invoke(cap.name, 1, args, channel="t")
            h.executor.deny(denied.pending_confirmation.token, channel="t")
    text = h.audit_path.read_text()
    outcomes = {e["code"] for e in h.events()}
    assert {
        "UNKNOWN_CAPABILITY",
        "INVALID_ARGUMENTS",
        "POLICY_DISABLED",
        "INVALID_CONFIRMATION",
        "FETCH_HTTP_ERROR",
        "EXECUTION_FAILED",
        "INVALID_RESULT",
        "RESULT_TOO_LARGE",
        "TIMEOUT",
        "DENIED",
        None,
    } <= outcomes
    assert CANARY not in text
    assert CANARY.lower() not in text.lower()
