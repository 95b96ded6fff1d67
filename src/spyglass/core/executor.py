"""The deterministic executor: resolve → validate → policy → check → confirm → execute → audit.

Every call from every front end passes through :meth:`Executor.ainvoke`. The core is async;
:meth:`Executor.invoke` adapts it for synchronous callers (the CLI) by running the coroutine
on a fresh event loop, so it must not be called from inside a running loop.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from spyglass.core.actor import AWAITING_APPROVAL, Actor, PersonalPolicy
from spyglass.core.audit import AuditSink
from spyglass.core.capability import Capability
from spyglass.core.confirmation import (
    CLAIM_BATCH,
    TOKEN_TTL_SECONDS,
    Binding,
    ConfirmationStore,
    PendingRecord,
    canonical_json,
    new_token,
)
from spyglass.core.context import InvocationContext, Seams, Turn
from spyglass.core.outcome import (
    Code,
    ErrorInfo,
    Notice,
    Outcome,
    PendingConfirmation,
    Stage,
    Status,
)
from spyglass.core.policy import (
    WEB_ACCESS,
    WEB_FETCH,
    WEB_SEARCH,
    PolicySource,
    policy_problem,
    read_snapshot,
    switch_off,
)
from spyglass.core.registry import Registry
from spyglass.core.schema import validation_error
from spyglass.errors import CapabilityError, StoreUnavailable
from spyglass.settings import Settings

logger = logging.getLogger(__name__)

#: Extra seconds the executor waits past a capability's own configured deadline, so the
#: capability can report its own, more precise, timeout first.
TIMEOUT_GRACE_SECONDS = 2.0

#: The sweep that runs before calls asks the store at most this often (seconds); the service
#: also sweeps on a timer. Asking on every call would add a store round trip to each.
SWEEP_EVERY_SECONDS = 1.0

#: Notices of this kind prefix are privacy findings; their kinds are audited.
FINDING_PREFIX = "privacy."
_KIND = re.compile(r"[a-z][a-z0-9_]{0,31}")
MAX_FINDINGS = 10

POLICY_HINT = {
    WEB_ACCESS: (
        "web access is off. The owner can turn it on with `spyglass policy enable`, "
        "the console switch, or POST /api/v1/policy"
    ),
    WEB_SEARCH: (
        "web search is switched off by the owner (web access itself is on). The owner can "
        "turn it on with `spyglass policy enable search`, the console's Search switch, or "
        'POST /api/v1/policy with {"web_search_enabled": true}'
    ),
    WEB_FETCH: (
        "reading web pages is switched off by the owner (web access itself is on). The owner "
        "can turn it on with `spyglass policy enable fetch`, the console's Pages switch, or "
        'POST /api/v1/policy with {"web_fetch_enabled": true}'
    ),
}


@dataclass
class _Attempt:
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


class Executor:
    """Runs capabilities from one registry under the owner's policy and confirmation."""

    def __init__(
        self,
        registry: Registry,
        *,
        settings: Settings,
        policy: PolicySource,
        audit: AuditSink,
        confirmations: ConfirmationStore,
        seams: Seams | None = None,
        delegated_channels: frozenset[str] | None = None,
        clock: Callable[[], float] = time.time,
        people: PersonalPolicy | None = None,
    ) -> None:
        self.registry = registry
        self.settings = settings
        self.policy = policy
        self.audit = audit
        self.confirmations = confirmations
        self.seams = seams or Seams(settings)
        self.delegated_channels = (
            settings.channels.delegated() if delegated_channels is None else delegated_channels
        )
        self.clock = clock
        #: Each person's own permissions, asked in the policy stage for calls made for one.
        self.people = people
        #: When this executor last asked the store for expired cards (its clock).
        self._swept_at: float | None = None

    # -- public API -------------------------------------------------------------------------

    def invoke(
        self,
        name: str,
        version: int | None,
        arguments: Any,
        *,
        channel: str,
        turn: Turn | None = None,
        confirmation_token: str | None = None,
        recovered: bool = False,
        actor: Actor | None = None,
    ) -> Outcome:
        """Synchronous form of :meth:`ainvoke`, for code that has no event loop."""
        return asyncio.run(
            self.ainvoke(
                name,
                version,
                arguments,
                channel=channel,
                turn=turn,
                confirmation_token=confirmation_token,
                recovered=recovered,
                actor=actor,
            )
        )

    async def ainvoke(
        self,
        name: str,
        version: int | None,
        arguments: Any,
        *,
        channel: str,
        turn: Turn | None = None,
        confirmation_token: str | None = None,
        recovered: bool = False,
        actor: Actor | None = None,
    ) -> Outcome:
        """Run one invocation attempt through every stage and audit it exactly once.

        ``version=None`` means the newest registered version (what a model's tool call
        names). ``recovered`` marks a call parsed out of text a model leaked. ``actor`` is
        the person the call is made for (``None``: nobody signed in, the local owner).
        """
        attempt = _Attempt(
            invocation_id=uuid.uuid4().hex,
            channel=channel,
            started=time.perf_counter(),
            recovered=recovered,
            actor=actor,
        )
        turn = turn or Turn()
        await self.sweep_due()
        outcome = await self._run(attempt, name, version, arguments, turn, confirmation_token)
        self._audit(attempt, outcome)
        return outcome

    def deny(
        self,
        token: str,
        *,
        channel: str,
        conversation_id: str | None = None,
        actor: Actor | None = None,
    ) -> Outcome:
        """Synchronous form of :meth:`adeny`, for code that has no event loop."""
        return asyncio.run(
            self.adeny(token, channel=channel, conversation_id=conversation_id, actor=actor)
        )

    async def adeny(
        self,
        token: str,
        *,
        channel: str,
        conversation_id: str | None = None,
        actor: Actor | None = None,
    ) -> Outcome:
        """The person said no: the token is spent and a ``denied`` outcome is audited.

        A token that had already expired is also audited as the expiry of its card. Only the
        person the call was proposed for can decline it with the token.
        """
        await self.sweep_due()
        attempt = _Attempt(
            invocation_id=uuid.uuid4().hex,
            channel=channel,
            started=time.perf_counter(),
            actor=actor,
        )
        try:
            record = await self.confirmations.take(token) if isinstance(token, str) else None
        except StoreUnavailable as exc:
            outcome = self._unavailable(attempt, exc)
            self._audit(attempt, outcome)
            return outcome
        if record is not None and record.binding.account_id != _account(actor):
            # Someone else's call: it stays theirs, and the answer is the one an unknown
            # token gets, so its existence does not leak.
            await self._restore(record)
            record = None
        if record is not None:
            self._settled(record, channel)
        if record is not None and record.expires_at < self.clock():
            outcome = self._stop(
                attempt,
                "confirm",
                "denied",
                Code.INVALID_CONFIRMATION,
                "this confirmation had already expired when it was declined; nothing ran",
                reason="expired",
            )
        elif record is None or record.binding.conversation_id != conversation_id:
            outcome = self._stop(
                attempt,
                "confirm",
                "rejected",
                Code.INVALID_CONFIRMATION,
                "this confirmation is unknown, already answered or expired; ask again",
                reason="unknown",
            )
        else:
            capability = self.registry.get(record.binding.capability, record.binding.version)
            attempt.capability = capability
            attempt.name, attempt.version = record.binding.capability, record.binding.version
            attempt.invocation_id = record.invocation_id
            outcome = self._stop(
                attempt,
                "confirm",
                "denied",
                Code.DENIED,
                "the owner declined this call",
            )
        self._audit(attempt, outcome)
        return outcome

    async def refuse_confirmation(
        self, *, channel: str, reason: str = "unknown", actor: Actor | None = None
    ) -> Outcome:
        """Audit an answer to a confirmation that a front end refused before it reached here.

        For tokens a front end cannot even match to a paused call (forged, replayed, from
        another conversation, or expired past recall). Nothing is consumed; the token and
        anything it was for stay out of the audit, which records only that an answer was
        refused.
        """
        await self.sweep_due()
        attempt = _Attempt(
            invocation_id=uuid.uuid4().hex,
            channel=channel,
            started=time.perf_counter(),
            actor=actor,
        )
        outcome = self._stop(
            attempt,
            "confirm",
            "rejected",
            Code.INVALID_CONFIRMATION,
            "this confirmation is unknown, already answered, expired or belongs to another "
            "conversation; ask again",
            reason=reason,
        )
        self._audit(attempt, outcome)
        return outcome

    async def sweep_expired(self) -> int:
        """Audit every confirmation that expired unanswered, whichever process issued it.

        Each such card is one ``CONFIRMATION_EXPIRED`` event, written by whoever notices it
        first: a sweep in any process sharing the store (claiming it is atomic) or a late
        answer. Returns how many this sweep claimed.
        """
        now = self.clock()
        self._swept_at = now
        found = 0
        while True:
            try:
                records = await self.confirmations.claim_expired(now, CLAIM_BATCH)
            except StoreUnavailable:
                # The store is down: the cards stay unclaimed for a later sweep (or answer).
                return found
            for record in records:
                self._audit_expiry(record, record.channel or "unknown")
            found += len(records)
            if len(records) < CLAIM_BATCH:
                return found

    async def sweep_due(self) -> int:
        """:meth:`sweep_expired`, unless this executor swept less than a second ago."""
        now = self.clock()
        if self._swept_at is not None and 0 <= now - self._swept_at < SWEEP_EVERY_SECONDS:
            return 0
        return await self.sweep_expired()

    # -- the pipeline -----------------------------------------------------------------------

    async def _run(
        self,
        attempt: _Attempt,
        name: str,
        version: int | None,
        arguments: Any,
        turn: Turn,
        token: str | None,
    ) -> Outcome:
        # 1. resolve
        capability = self.registry.get(name, version) if isinstance(name, str) else None
        # The name as asked for is shown back, cut short and with anything UTF-8 cannot
        # encode (a lone surrogate) replaced, so the refusal itself can always be sent.
        attempt.name = (
            name[:64].encode("utf-8", "replace").decode("utf-8") if isinstance(name, str) else "?"
        )
        attempt.version = version
        if capability is None:
            known = ", ".join(sorted({c.name for c in self.registry}))
            what = f"{attempt.name} v{version}" if version is not None else attempt.name
            return self._stop(
                attempt,
                "resolve",
                "rejected",
                Code.UNKNOWN_CAPABILITY,
                f"unknown capability {what}; available: {known}",
            )
        attempt.capability = capability
        attempt.name, attempt.version = capability.name, capability.version
        cname = capability.name

        # 2. validate
        if not isinstance(arguments, dict):
            problem: str | None = "arguments must be a JSON object"
        else:
            problem = validation_error(capability.argument_schema, arguments)
        if problem is not None:
            return self._stop(
                attempt,
                "validate",
                "rejected",
                Code.INVALID_ARGUMENTS,
                f"invalid arguments: {problem}",
            )

        # 3. policy, read fresh on every call (once: every switch from the same reading)
        switches = await read_snapshot(self.policy)
        attempt.switches = switches
        off = switch_off(switches, capability)
        if off is not None:
            # Off because the policy cannot be read is not the same as switched off: the
            # owner must fix the file, not flip a switch they believe is already on.
            unreadable = policy_problem(switches)
            if unreadable is not None:
                return self._stop(
                    attempt, "policy", "rejected", unreadable.code, unreadable.message
                )
            hint = POLICY_HINT.get(
                off,
                f"the owner's switch {off} is off; the owner can turn it on with "
                "POST /api/v1/policy",
            )
            return self._stop(attempt, "policy", "rejected", Code.POLICY_DISABLED, hint)
        # The person's own permissions, under the owner's switches: they can only narrow.
        actor = attempt.actor
        if actor is not None and self.people is not None:
            try:
                personal = await self.people.check(actor, cname, arguments, self.settings)
            except StoreUnavailable as exc:
                return self._unavailable(attempt, exc, stage="policy")
            if isinstance(personal, Settings):
                attempt.settings = personal
            else:
                return self._stop(
                    attempt,
                    "policy",
                    "rejected",
                    personal.code,
                    personal.message,
                    reason=personal.reason,
                )

        # The turn cap is an execution bound, but checking it before asking the owner avoids
        # asking for approval of a call that could never run.
        limit = capability.bounds.max_invocations_per_turn
        if turn.would_exceed(cname, limit):
            return self._turn_limit(attempt, capability)

        # An approval is taken before the check, so the check of the approved call runs under
        # the pending call's invocation id and sees what the person was shown (the provider
        # a weighted route picks is pinned by that id).
        approved = False
        waits = self._waits_for_approver(attempt)
        needs_owner = capability.requires_confirmation and (
            waits or attempt.channel not in self.delegated_channels
        )
        if needs_owner and token is not None:
            if waits:
                # Someone else approves this person's calls: the token works only once they
                # have, and is never spent while they have not decided.
                stop = await self._approver_decision(attempt, token)
                if stop is not None:
                    return stop
            refusal = await self._consume(attempt, capability, arguments, turn, token)
            if refusal is not None:
                return refusal
            approved = True

        # 4. check: everything that needs no network, so nobody is asked about a call that
        # could only be refused. Runs again on the approved call: settings may have changed.
        notices: tuple[Notice, ...] = ()
        if capability.precheck is not None:
            context = self._context(attempt, capability, arguments, turn)
            try:
                notices = tuple(await capability.precheck(context))
            except CapabilityError as exc:
                attempt.findings = _finding_kinds(exc.findings)
                return self._stop(
                    attempt,
                    "check",
                    "rejected",
                    exc.code,
                    exc.message,
                    retryable=exc.retryable,
                    reason=exc.reason,
                )

            attempt.findings = _finding_kinds(
                n.kind.removeprefix(FINDING_PREFIX)
                for n in notices
                if n.kind.startswith(FINDING_PREFIX)
            )

        # 5. confirm
        if capability.requires_confirmation:
            if attempt.channel in self.delegated_channels and not waits:
                attempt.confirmed_by = "delegated"
            elif not approved:
                return await self._pending(attempt, capability, arguments, turn, notices)
            else:
                attempt.confirmed_by = "approver" if waits else "owner"

        # 6. execute, bounded
        if not turn.reserve(cname, limit):
            return self._turn_limit(attempt, capability)
        if actor is not None and self.people is not None:
            try:
                spent = await self.people.spend(actor, cname)
            except StoreUnavailable as exc:
                return self._unavailable(attempt, exc, stage="policy")
            if spent is not None:
                return self._stop(
                    attempt, "policy", "rejected", spent.code, spent.message, reason=spent.reason
                )
        return await self._execute(attempt, capability, arguments, turn)

    def _waits_for_approver(self, attempt: _Attempt) -> bool:
        return (
            attempt.actor is not None and attempt.actor.needs_approval and self.people is not None
        )

    async def _approver_decision(self, attempt: _Attempt, token: str) -> Outcome | None:
        """A stop while the approver has not approved; ``None`` once they have."""
        assert attempt.actor is not None and self.people is not None
        try:
            decision = await self.people.decision(attempt.actor, token)
        except StoreUnavailable as exc:
            return self._unavailable(attempt, exc)
        if decision == "approved":
            return None
        if decision == "waiting":
            return self._stop(
                attempt,
                "confirm",
                "rejected",
                AWAITING_APPROVAL,
                "this call is still waiting for an owner or a parent to approve it; it has not "
                "run. Ask again once they have answered",
                retryable=True,
            )
        # Denied: the token is spent, so the call can never run, and recorded as declined.
        try:
            record = await self.confirmations.take(token)
        except StoreUnavailable as exc:
            return self._unavailable(attempt, exc)
        if record is not None and record.binding.account_id != _account(attempt.actor):
            await self._restore(record)
            record = None
        if record is not None:
            self._settled(record, attempt.channel)
            attempt.invocation_id = record.invocation_id
        # A card a sweep found expired stays in the store (marked audited) until taken, so
        # its expiry is read from the record itself.
        if record is not None and record.expires_at < self.clock():
            return self._stop(
                attempt,
                "confirm",
                "denied",
                Code.INVALID_CONFIRMATION,
                "nobody approved this call before it expired; it did not run. Ask again",
                reason="expired",
            )
        if record is None:
            return self._stop(
                attempt,
                "confirm",
                "rejected",
                Code.INVALID_CONFIRMATION,
                "this confirmation is unknown or was already used; ask again",
                reason="unknown",
            )
        return self._stop(
            attempt,
            "confirm",
            "denied",
            Code.DENIED,
            "an owner or a parent declined this call; it did not run",
        )

    async def _pending(
        self,
        attempt: _Attempt,
        capability: Capability,
        arguments: dict[str, Any],
        turn: Turn,
        notices: tuple[Notice, ...],
    ) -> Outcome:
        record = PendingRecord(
            token=new_token(),
            binding=Binding(
                capability.name,
                capability.version,
                canonical_json(arguments),
                turn.conversation_id,
                _account(attempt.actor),
            ),
            invocation_id=attempt.invocation_id,
            expires_at=self.clock() + TOKEN_TTL_SECONDS,
            channel=attempt.channel,
        )
        waiting_for: str | None = None
        try:
            await self.confirmations.put(record)
            if self._waits_for_approver(attempt):
                assert attempt.actor is not None and self.people is not None
                waiting_for = await self.people.ask(
                    attempt.actor,
                    record.token,
                    capability.name,
                    arguments,
                    notices,
                    turn.conversation_id,
                    record.expires_at,
                )
        except StoreUnavailable as exc:
            return self._unavailable(attempt, exc)
        return Outcome(
            status="pending_confirmation",
            capability=capability.name,
            version=capability.version,
            invocation_id=attempt.invocation_id,
            stage="confirm",
            pending_confirmation=PendingConfirmation(
                token=record.token,
                capability=capability.name,
                version=capability.version,
                arguments=arguments,
                expires_in_seconds=TOKEN_TTL_SECONDS,
                notices=notices,
                waiting_for=waiting_for,
            ),
        )

    async def _consume(
        self,
        attempt: _Attempt,
        capability: Capability,
        arguments: dict[str, Any],
        turn: Turn,
        token: str,
    ) -> Outcome | None:
        cname, cversion = capability.name, capability.version
        try:
            record = await self.confirmations.take(token) if isinstance(token, str) else None
        except StoreUnavailable as exc:
            # Fail closed: without the store nobody can tell whether this call was approved.
            return self._unavailable(attempt, exc)
        if record is not None and record.binding.account_id != _account(attempt.actor):
            # Another person's token (guessed, swapped or replayed): it stays theirs, and the
            # answer is the one an unknown token gets, so its existence does not leak.
            await self._restore(record)
            record = None
        if record is not None:
            self._settled(record, attempt.channel)
        # Expired: taken here past its time (perhaps already found unanswered by a sweep).
        if record is not None and record.expires_at < self.clock():
            return self._stop(
                attempt,
                "confirm",
                "denied",
                Code.INVALID_CONFIRMATION,
                "this confirmation expired before it was approved; ask again",
                reason="expired",
            )
        if record is None:
            return self._stop(
                attempt,
                "confirm",
                "rejected",
                Code.INVALID_CONFIRMATION,
                "this confirmation is unknown or was already used; ask again",
                reason="unknown",
            )
        expected = Binding(
            cname,
            cversion,
            canonical_json(arguments),
            turn.conversation_id,
            _account(attempt.actor),
        )
        if record.binding.conversation_id != expected.conversation_id:
            return self._stop(
                attempt,
                "confirm",
                "rejected",
                Code.INVALID_CONFIRMATION,
                "this confirmation belongs to another conversation",
                reason="conversation",
            )
        if record.binding != expected:
            return self._stop(
                attempt,
                "confirm",
                "rejected",
                Code.INVALID_CONFIRMATION,
                "this confirmation was given for a different call; ask again",
                reason="mismatch",
            )
        attempt.invocation_id = record.invocation_id
        return None

    async def _restore(self, record: PendingRecord) -> None:
        """Put back a record taken by someone it does not belong to (before it was settled,
        so its expiry is still tracked under the channel it was issued on)."""
        try:
            await self.confirmations.put(record)
        except StoreUnavailable:
            logger.warning("a confirmation taken by the wrong person could not be put back")

    def _context(
        self, attempt: _Attempt, capability: Capability, arguments: dict[str, Any], turn: Turn
    ) -> InvocationContext:
        return InvocationContext(
            arguments=arguments,
            invocation_id=attempt.invocation_id,
            channel=attempt.channel,
            turn=turn,
            settings=attempt.settings or self.settings,
            seams=self.seams,
            policy=attempt.switches or self.policy,
            max_result_bytes=capability.bounds.max_result_bytes,
            delegated=attempt.channel in self.delegated_channels
            and not self._waits_for_approver(attempt),
            actor=attempt.actor,
        )

    async def _execute(
        self, attempt: _Attempt, capability: Capability, arguments: dict[str, Any], turn: Turn
    ) -> Outcome:
        cname, cversion = capability.name, capability.version
        context = self._context(attempt, capability, arguments, turn)
        timeout = self._timeout(capability)
        try:
            result = await asyncio.wait_for(capability.handler(context), timeout)
        except CapabilityError as exc:
            attempt.extra["provider"] = context.provider
            return self._stop(
                attempt,
                "execute",
                exc.status,
                exc.code,
                exc.message,
                retryable=exc.retryable,
                reason=exc.reason,
            )
        except TimeoutError:
            attempt.extra["provider"] = context.provider
            return self._stop(
                attempt,
                "execute",
                "failed",
                Code.TIMEOUT,
                f"{cname} did not finish within {timeout:g} seconds; try again later",
                retryable=True,
            )
        except Exception:
            attempt.extra["provider"] = context.provider
            logger.exception("capability %s v%s raised", cname, cversion)
            return self._stop(
                attempt,
                "execute",
                "failed",
                Code.EXECUTION_FAILED,
                f"{cname} failed unexpectedly; the details are in the Spyglass log",
            )
        attempt.extra["provider"] = context.provider

        problem = validation_error(capability.result_schema, result)
        if problem is not None:
            logger.error(
                "capability %s v%s returned an invalid result: %s", cname, cversion, problem
            )
            return self._stop(
                attempt,
                "execute",
                "failed",
                Code.INVALID_RESULT,
                f"{cname} produced a result that breaks its schema",
            )
        size = len(json.dumps(result, ensure_ascii=False).encode("utf-8"))
        attempt.extra["result_bytes"] = size
        if size > capability.bounds.max_result_bytes:
            return self._stop(
                attempt,
                "execute",
                "failed",
                Code.RESULT_TOO_LARGE,
                f"{cname} result is {size} bytes, over the "
                f"{capability.bounds.max_result_bytes}-byte bound",
            )
        return Outcome(
            status="ok",
            capability=cname,
            version=cversion,
            invocation_id=attempt.invocation_id,
            stage="execute",
            result=result,
            provider=context.provider,
        )

    def _timeout(self, capability: Capability) -> float:
        if capability.timeout_setting is None:
            return capability.bounds.timeout_seconds
        value: Any = self.settings
        for part in capability.timeout_setting.split("."):
            value = getattr(value, part)
        return float(value) + TIMEOUT_GRACE_SECONDS

    def _turn_limit(self, attempt: _Attempt, capability: Capability) -> Outcome:
        limit = capability.bounds.max_invocations_per_turn
        return self._stop(
            attempt,
            "execute",
            "rejected",
            Code.TURN_LIMIT_EXCEEDED,
            f"{capability.name} may run at most {limit} time(s) per turn; "
            "answer with what you have",
        )

    def _unavailable(
        self, attempt: _Attempt, exc: StoreUnavailable, *, stage: Stage = "confirm"
    ) -> Outcome:
        logger.warning("state store unavailable: %s", exc.message)
        return self._stop(
            attempt,
            stage,
            "failed",
            Code.STORE_UNAVAILABLE,
            f"the {exc.store} state store cannot be reached, so this call cannot be confirmed "
            "and did not run; try again once it is back (GET /api/v1/health shows its state)",
            retryable=True,
            reason=exc.store,
        )

    def _stop(
        self,
        attempt: _Attempt,
        stage: Stage,
        status: Status,
        code: str,
        message: str,
        *,
        retryable: bool = False,
        reason: str | None = None,
    ) -> Outcome:
        return Outcome(
            status=status,
            capability=attempt.name,
            version=attempt.version,
            invocation_id=attempt.invocation_id,
            stage=stage,
            error=ErrorInfo(code=str(code), message=message, retryable=retryable, reason=reason),
            provider=attempt.extra.get("provider"),
        )

    # -- expiry -----------------------------------------------------------------------------

    def _settled(self, record: PendingRecord, channel: str) -> None:
        """An answer took ``record``: if it had expired unnoticed, its card's expiry is
        audited now (a sweep that claimed it first has audited it already)."""
        if record.expires_at < self.clock() and not record.expiry_audited:
            self._audit_expiry(record, record.channel or channel)

    def _audit_expiry(self, record: PendingRecord, channel: str) -> None:
        attempt = _Attempt(
            invocation_id=record.invocation_id, channel=channel, started=time.perf_counter()
        )
        attempt.capability = self.registry.get(record.binding.capability, record.binding.version)
        attempt.name, attempt.version = record.binding.capability, record.binding.version
        outcome = self._stop(
            attempt,
            "confirm",
            "denied",
            Code.CONFIRMATION_EXPIRED,
            "nobody answered this confirmation before it expired",
            reason="expired",
        )
        self._audit(attempt, outcome)

    # -- audit ------------------------------------------------------------------------------

    def _audit(self, attempt: _Attempt, outcome: Outcome) -> None:
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
        self.audit.record(event)


def _account(actor: Actor | None) -> str | None:
    return None if actor is None else actor.account_id


def _finding_kinds(kinds: Iterable[str]) -> list[str]:
    """Distinct kinds, kept only if they have the shape of an identifier: a capability
    cannot smuggle content into the audit log through a finding."""
    return list(dict.fromkeys(k for k in kinds if _KIND.fullmatch(k)))[:MAX_FINDINGS]
