"""One invocation attempt: what its audit event needs, and the outcomes that stop it."""

from __future__ import annotations

import logging
import re
import time
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from spyglass.core.actor import Actor
from spyglass.core.capability import Capability
from spyglass.core.outcome import UNASKED, Code, ErrorInfo, Notice, Outcome, Stage, Status
from spyglass.core.policy import PolicySource
from spyglass.errors import StoreUnavailable
from spyglass.settings import Settings

logger = logging.getLogger(__name__)

#: Notices of this kind prefix are privacy findings; their kinds are audited.
FINDING_PREFIX = "privacy."
#: Notices of this kind prefix warn that an argument hides or imitates something (invisible
#: characters, a look-alike host: :mod:`spyglass.untrusted.shown`).
WARNING_PREFIX = "shown."


def warns(notice: Notice) -> bool:
    """Whether a notice warns about the call (a privacy finding, a hidden character, a
    look-alike host) rather than informs: what front ends show first and ``flagged`` asks for."""
    return notice.kind.startswith((FINDING_PREFIX, WARNING_PREFIX))


_KIND = re.compile(r"[a-z][a-z0-9_]{0,31}")
MAX_FINDINGS = 10


@dataclass
class Attempt:
    """What the audit event needs to know about one attempt, filled in as stages pass."""

    invocation_id: str
    channel: str
    started: float
    #: The name and version as asked for (the name cut short) until resolved.
    name: str = "unknown"
    version: int | None = None
    capability: Capability | None = None
    confirmed_by: str | None = None
    recovered: bool = False
    actor: Actor | None = None
    #: The settings this call runs with (the person's own provider keys), once known.
    settings: Settings | None = None
    #: Kinds of private data the check found (``email``): fixed identifiers, never content.
    findings: list[str] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)
    #: The owner's switches as the policy stage read them; the handler sees the same reading
    #: (and never waits on a policy store itself).
    switches: PolicySource | None = None

    @classmethod
    def begin(cls, channel: str, actor: Actor | None = None, *, recovered: bool = False) -> Attempt:
        """A new attempt, under a fresh invocation id, timed from now."""
        return cls(
            invocation_id=uuid.uuid4().hex,
            channel=channel,
            started=time.perf_counter(),
            recovered=recovered,
            actor=actor,
        )


def account(actor: Actor | None) -> str | None:
    """The account a call is made for (``None``: the local owner), as tokens are bound."""
    return None if actor is None else actor.account_id


def finding_kinds(kinds: Iterable[str]) -> list[str]:
    """Distinct kinds, kept only if they have the shape of an identifier: a capability
    cannot smuggle content into the audit log through a finding."""
    return list(dict.fromkeys(k for k in kinds if _KIND.fullmatch(k)))[:MAX_FINDINGS]


def stop(
    attempt: Attempt,
    stage: Stage,
    status: Status,
    code: str,
    message: str,
    *,
    retryable: bool = False,
    reason: str | None = None,
) -> Outcome:
    """The outcome of an attempt that ended at ``stage`` without a result."""
    return Outcome(
        status=status,
        capability=attempt.name,
        version=attempt.version,
        invocation_id=attempt.invocation_id,
        stage=stage,
        error=ErrorInfo(code=str(code), message=message, retryable=retryable, reason=reason),
        provider=attempt.extra.get("provider"),
        unasked=unasked(attempt),
    )


def unasked(attempt: Attempt) -> str | None:
    """The rule the attempt ran under without a card, once past its confirm stage."""
    return attempt.confirmed_by if attempt.confirmed_by in UNASKED else None


def unavailable(attempt: Attempt, exc: StoreUnavailable, *, stage: Stage = "confirm") -> Outcome:
    """The outcome of an attempt stopped because a state store cannot be reached."""
    logger.warning("state store unavailable: %s", exc.message)
    return stop(
        attempt,
        stage,
        "failed",
        Code.STORE_UNAVAILABLE,
        f"the {exc.store} state store cannot be reached, so this call cannot be confirmed "
        "and did not run; try again once it is back (GET /api/v1/health shows its state)",
        retryable=True,
        reason=exc.store,
    )


def audit_event(attempt: Attempt, outcome: Outcome) -> dict[str, Any]:
    """The audit event of one attempt: that it happened and how it ended, never what it carried."""
    capability = attempt.capability
    event: dict[str, Any] = {
        "ts": datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        "event_id": uuid.uuid4().hex,
        "invocation_id": attempt.invocation_id,
        # An unknown name came from the caller and could carry anything: never logged.
        "capability": capability.name if capability else None,
        "version": capability.version if capability else None,
        "side_effect": capability.side_effect.value if capability else None,
        "network": capability.network.value if capability else None,
        "confirmation": capability.confirmation.value if capability else None,
        "channel": attempt.channel,
        "stage": outcome.stage,
        "outcome": outcome.status,
        "code": outcome.error.code if outcome.error else None,
        "result_bytes": attempt.extra.get("result_bytes", 0),
        "duration_ms": round((time.perf_counter() - attempt.started) * 1000, 3),
    }
    if attempt.confirmed_by is not None:
        event["confirmed_by"] = attempt.confirmed_by
    provider = attempt.extra.get("provider")
    if provider is not None:
        event["provider"] = provider
    if attempt.recovered:
        event["recovered"] = True
    if attempt.findings:
        event["findings"] = attempt.findings
    if attempt.actor is not None:
        event["actor"] = attempt.actor.pseudonym
    return event
