"""The deterministic executor: resolve → validate → policy → check → confirm → execute → audit.

Every call from every front end passes through :meth:`Executor.ainvoke`. The core is async;
:meth:`Executor.invoke` adapts it for synchronous callers (the CLI) by running the coroutine
on a fresh event loop, so it must not be called from inside a running loop.

The executor is one object made of four parts, each a small class in its own module, given to
it by the composition root (:func:`spyglass.runtime.build_runtime`) or built from its stores
when not given, and held as an attribute:

- ``permission`` (:class:`~spyglass.core.permission.Permission`): the policy stage, and the
  person's allowance spent as a call runs;
- ``answers`` (:class:`~spyglass.core.answers.Answers`): confirmation cards issued, approved
  and declined;
- ``expiry`` (:class:`~spyglass.core.expiry.ExpirySweep`): cards nobody answered in time,
  audited once;
- ``unasked`` (:class:`~spyglass.core.flagged.Unasked`): whether a call in Spyglass's own
  conversations runs without a card (the ``flagged`` rule, conversation grants), or why it
  asks.

The execute stage (a handler run within its deadline, its result checked) is
:mod:`spyglass.core.execution`.

Front ends keep calling the executor itself: ``adeny``, ``refuse_confirmation``,
``give_back``, ``sweep_expired`` and ``sweep_due`` are thin methods here that hand the work to
a part, so each entry point still sweeps and audits in one place. A caller that keeps waiting
calls with its own turns says so with one :class:`~spyglass.core.parked.Parked` record.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from spyglass.core.actor import Actor, PersonalPolicy
from spyglass.core.answers import Answers
from spyglass.core.attempt import (
    FINDING_PREFIX,
    Attempt,
    audit_event,
    finding_kinds,
    stop,
    unavailable,
)
from spyglass.core.audit import AuditSink
from spyglass.core.capability import Capability
from spyglass.core.confirmation import ConfirmationStore, Taken
from spyglass.core.context import InvocationContext, Seams, Turn
from spyglass.core.execution import execute, timeout_for
from spyglass.core.expiry import ExpirySweep
from spyglass.core.flagged import Unasked
from spyglass.core.grants import GrantStore, InMemoryGrants
from spyglass.core.outcome import Code, Notice, Outcome
from spyglass.core.parked import Parked
from spyglass.core.permission import Permission
from spyglass.core.policy import PolicySource
from spyglass.core.registry import Registry
from spyglass.core.schema import validation_error
from spyglass.errors import CapabilityError, StoreUnavailable
from spyglass.settings import Settings

logger = logging.getLogger(__name__)

T = TypeVar("T")


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
        permission: Permission | None = None,
        expiry: ExpirySweep | None = None,
        answers: Answers | None = None,
        grants: GrantStore | None = None,
    ) -> None:
        self.registry = registry
        self.settings = settings
        self.policy = policy
        self.seams = seams or Seams(settings)
        self.delegated_channels = (
            settings.channels.delegated() if delegated_channels is None else delegated_channels
        )
        #: Each person's own permissions, asked in the policy stage for calls made for one.
        self.people = people
        self._audit = audit
        self.permission = permission or Permission(policy, people, settings)
        self.expiry = expiry or ExpirySweep(registry, confirmations, audit, clock)
        self.answers = answers or Answers(
            registry, confirmations, self.expiry, people=people, clock=clock
        )
        # Asked for the settings and for who waits at every call: both may be swapped after
        # building (the settings by tests, the answers part with its stores).
        self.unasked = Unasked(
            registry,
            lambda: self.settings,
            grants or InMemoryGrants(clock),
            lambda actor: self.answers.waits(actor),
        )

    # -- what the parts share, and tests (and the runtime's stores) swap after building ------

    @property
    def clock(self) -> Callable[[], float]:
        """Wall-clock time as this executor and its parts see it."""
        return self.expiry.clock

    @clock.setter
    def clock(self, clock: Callable[[], float]) -> None:
        self.expiry.clock = self.answers.clock = clock

    @property
    def confirmations(self) -> ConfirmationStore:
        """Where confirmation cards wait for their answers."""
        return self.answers.confirmations

    @confirmations.setter
    def confirmations(self, store: ConfirmationStore) -> None:
        self.expiry.confirmations = self.answers.confirmations = store

    @property
    def grants(self) -> GrantStore:
        """Where "Allow for this conversation" grants are kept."""
        return self.unasked.grants

    @grants.setter
    def grants(self, store: GrantStore) -> None:
        self.unasked.grants = store

    @property
    def audit(self) -> AuditSink:
        """Where every attempt's audit event is written."""
        return self._audit

    @audit.setter
    def audit(self, sink: AuditSink) -> None:
        self._audit = self.expiry.audit = sink

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
        return self.run_sync(
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
        parked: Parked | None = None,
    ) -> Outcome:
        """Run one invocation attempt through every stage and audit it exactly once.

        ``version=None`` means the newest registered version (what a model's tool call
        names). ``recovered`` marks a call parsed out of text a model leaked. ``actor`` is
        the person the call is made for (``None``: nobody signed in, the local owner).
        ``parked``: where the caller keeps this call while it waits for an answer (a card it
        issues, or the record of ``confirmation_token`` taken already); see :class:`Parked`.
        """
        attempt = Attempt.begin(channel, actor, recovered=recovered)
        turn = turn or Turn()
        parked = parked or Parked()
        await self.expiry.sweep_due()
        try:
            outcome = await self._run(
                attempt, name, version, arguments, turn, confirmation_token, parked
            )
        finally:
            if not parked.returns_taken:
                await self.answers.give_back(parked.taken)
        await self._audited(attempt, outcome)
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
        return self.run_sync(
            self.adeny(token, channel=channel, conversation_id=conversation_id, actor=actor)
        )

    async def adeny(
        self,
        token: str,
        *,
        channel: str,
        conversation_id: str | None = None,
        actor: Actor | None = None,
        parked: Parked | None = None,
    ) -> Outcome:
        """The person said no: the token is spent and a ``denied`` outcome is audited.

        A token that had already expired is also audited as the expiry of its card. Only the
        person the call was proposed for can decline it with the token. ``parked``: the
        token's record, taken by the caller already (``Parked.taken``).
        """
        await self.expiry.sweep_due()
        attempt = Attempt.begin(channel, actor)
        taken = parked.taken if parked is not None else None
        outcome = await self.answers.decline(attempt, token, conversation_id, taken)
        await self._audited(attempt, outcome)
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
        await self.expiry.sweep_due()
        attempt = Attempt.begin(channel, actor)
        outcome = self.answers.refused(attempt, reason)
        await self._audited(attempt, outcome)
        return outcome

    async def allow_for_conversation(
        self,
        conversation_id: str | None,
        capability: str,
        *,
        actor: Actor | None = None,
        channel: str,
        by_approver: bool = False,
    ) -> bool:
        """Record an "Allow for this conversation" for ``capability`` (given with an approved
        call): its later calls in this conversation, for this person, run under the
        ``flagged`` rule. Only in a conversation Spyglass runs; a person whose calls wait for
        an owner or a parent cannot give it themselves (``by_approver``: their approver
        does). Returns whether it was recorded; an unreachable store records nothing (the
        calls then ask, as before)."""
        return await self.unasked.allow(
            conversation_id, capability, actor=actor, channel=channel, by_approver=by_approver
        )

    async def give_back(self, taken: Taken | None) -> None:
        """Put back a record its caller took but no answer used (the call stopped before its
        confirm stage), so that its card still expires, and is audited, as before."""
        await self.answers.give_back(taken)

    async def sweep_expired(self) -> int:
        """Audit every confirmation that expired unanswered (see :class:`ExpirySweep`)."""
        return await self.expiry.sweep_expired()

    async def sweep_due(self) -> int:
        """:meth:`sweep_expired`, unless this executor swept less than a second ago."""
        return await self.expiry.sweep_due()

    def run_sync(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """Run one of this executor's coroutines from code that has no event loop, on a fresh
        event loop."""
        return asyncio.run(coroutine)

    # -- the pipeline -----------------------------------------------------------------------

    async def _run(
        self,
        attempt: Attempt,
        name: str,
        version: int | None,
        arguments: Any,
        turn: Turn,
        token: str | None,
        parked: Parked,
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
            return stop(
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
            return stop(
                attempt,
                "validate",
                "rejected",
                Code.INVALID_ARGUMENTS,
                f"invalid arguments: {problem}",
            )

        # 3. policy: the owner's switches, read fresh, then the person's own permissions
        refused = await self.permission.check(attempt, capability, arguments)
        if refused is not None:
            return refused

        # The turn cap is an execution bound, but checking it before asking the owner avoids
        # asking for approval of a call that could never run.
        limit = capability.bounds.max_invocations_per_turn
        if turn.would_exceed(cname, limit):
            return self._turn_limit(attempt, capability)

        # An approval is taken before the check, so the check of the approved call runs under
        # the pending call's invocation id and sees what the person was shown (the provider
        # a weighted route picks is pinned by that id).
        approved = False
        waits = self.answers.waits(attempt.actor)
        needs_owner = capability.requires_confirmation and (
            waits or attempt.channel not in self.delegated_channels
        )
        if needs_owner and token is not None:
            refusal = await self.answers.approve(
                attempt, capability, arguments, turn, token, parked.taken
            )
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
                attempt.findings = finding_kinds(exc.findings)
                return stop(
                    attempt,
                    "check",
                    "rejected",
                    exc.code,
                    exc.message,
                    retryable=exc.retryable,
                    reason=exc.reason,
                )

            attempt.findings = finding_kinds(
                n.kind.removeprefix(FINDING_PREFIX)
                for n in notices
                if n.kind.startswith(FINDING_PREFIX)
            )

        # 5. confirm
        if capability.requires_confirmation:
            if attempt.channel in self.delegated_channels and not waits:
                attempt.confirmed_by = "delegated"
            elif not approved:
                # What the arguments hide or imitate (invisible characters, a look-alike
                # host), said beside them on every front end's card, and a reason to ask.
                # Loaded only where a card may be issued.
                from spyglass.untrusted import shown

                notices = (*notices, *shown.notices(arguments))
                verdict = await self.unasked.verdict(attempt, capability, turn, notices, waits)
                if verdict.rule is None:
                    return await self.answers.issue(
                        attempt, capability, arguments, turn, notices, parked.keep, verdict.reasons
                    )
                attempt.confirmed_by = verdict.rule
            else:
                attempt.confirmed_by = "approver" if waits else "owner"

        # 6. execute, bounded
        if not turn.reserve(cname, limit):
            return self._turn_limit(attempt, capability)
        spent = await self.permission.spend(attempt, capability)
        if spent is not None:
            return spent
        if approved and parked.started is not None:
            try:
                await parked.started(attempt.invocation_id)
            except StoreUnavailable as exc:
                # Not recorded as started, so not sent: a crash now would misreport it.
                return unavailable(attempt, exc)
        return await self._execute(attempt, capability, arguments, turn)

    async def interrupted(
        self,
        name: str,
        version: int | None,
        invocation_id: str,
        *,
        channel: str,
        actor: Actor | None = None,
    ) -> Outcome:
        """The outcome, audited, of an approved call whose process stopped while it ran
        (:attr:`Parked.started` recorded it): it may have been sent, and is not run again."""
        attempt = Attempt.begin(channel, actor)
        attempt.invocation_id = invocation_id
        capability = self.registry.get(name, version)
        attempt.capability = capability
        attempt.name, attempt.version = name, version
        if capability is not None:
            attempt.name, attempt.version = capability.name, capability.version
        attempt.confirmed_by = "owner"
        outcome = stop(
            attempt,
            "execute",
            "failed",
            Code.INTERRUPTED,
            f"the process running {attempt.name} stopped while it ran: the request may have "
            "been sent, and it is not sent again",
        )
        await self._audited(attempt, outcome)
        return outcome

    def _context(
        self, attempt: Attempt, capability: Capability, arguments: dict[str, Any], turn: Turn
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
            and not self.answers.waits(attempt.actor),
            actor=attempt.actor,
        )

    async def _execute(
        self, attempt: Attempt, capability: Capability, arguments: dict[str, Any], turn: Turn
    ) -> Outcome:
        context = self._context(attempt, capability, arguments, turn)
        return await execute(attempt, capability, context, timeout_for(capability, self.settings))

    def _turn_limit(self, attempt: Attempt, capability: Capability) -> Outcome:
        limit = capability.bounds.max_invocations_per_turn
        return stop(
            attempt,
            "execute",
            "rejected",
            Code.TURN_LIMIT_EXCEEDED,
            f"{capability.name} may run at most {limit} time(s) per turn; "
            "answer with what you have",
        )

    async def _audited(self, attempt: Attempt, outcome: Outcome) -> None:
        """Record one attempt's audit event (every attempt is audited exactly once), returning
        once it is written: before the answer it records is sent, also where the sink writes
        on another thread (PostgreSQL)."""
        await self._audit.arecord(audit_event(attempt, outcome))
