"""The deterministic executor: resolve → validate → policy → check → confirm → execute → audit.

Every call from every front end passes through :meth:`Executor.ainvoke`. The core is async;
:meth:`Executor.invoke` adapts it for synchronous callers (the CLI) by running the coroutine
on a fresh event loop, so it must not be called from inside a running loop.
"""

from __future__ import annotations

import json
import logging
import time
import uuid
from collections.abc import Callable
from typing import Any

from spyglass.core.actor import Actor, PersonalPolicy
from spyglass.core.answers import ConfirmationAnswers, Keep
from spyglass.core.attempt import FINDING_PREFIX, Attempt, finding_kinds, stop, unavailable
from spyglass.core.audit import AuditSink
from spyglass.core.capability import Capability
from spyglass.core.confirmation import ConfirmationStore, Taken
from spyglass.core.context import InvocationContext, Seams, Turn
from spyglass.core.outcome import Code, Notice, Outcome
from spyglass.core.permission import policy_stage
from spyglass.core.policy import PolicySource
from spyglass.core.registry import Registry
from spyglass.core.schema import validation_error
from spyglass.errors import CapabilityError, StoreUnavailable
from spyglass.settings import Settings

logger = logging.getLogger(__name__)

#: Extra seconds the executor waits past a capability's own configured deadline, so the
#: capability can report its own, more precise, timeout first.
TIMEOUT_GRACE_SECONDS = 2.0


class Executor(ConfirmationAnswers):
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
        keep: Keep | None = None,
        taken: Taken | None = None,
    ) -> Outcome:
        """Run one invocation attempt through every stage and audit it exactly once.

        ``version=None`` means the newest registered version (what a model's tool call
        names). ``recovered`` marks a call parsed out of text a model leaked. ``actor`` is
        the person the call is made for (``None``: nobody signed in, the local owner).

        ``keep`` stores a confirmation this call issues, in place of the confirmation store
        (the caller writes it with its paused turn, in one store step); ``taken`` is the
        record of ``confirmation_token``, taken from the store by the caller already (with
        its paused turn). Every check on the token is made as when the executor takes it;
        a record the call does not reach its confirm stage with is put back.
        """
        attempt = Attempt(
            invocation_id=uuid.uuid4().hex,
            channel=channel,
            started=time.perf_counter(),
            recovered=recovered,
            actor=actor,
        )
        turn = turn or Turn()
        await self.sweep_due()
        try:
            outcome = await self._run(
                attempt, name, version, arguments, turn, confirmation_token, keep, taken
            )
        finally:
            await self.give_back(taken)
        await self._audited(attempt, outcome)
        return outcome

    # -- the pipeline -----------------------------------------------------------------------

    async def _run(
        self,
        attempt: Attempt,
        name: str,
        version: int | None,
        arguments: Any,
        turn: Turn,
        token: str | None,
        keep: Keep | None = None,
        taken: Taken | None = None,
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
        refused = await policy_stage(
            attempt,
            capability,
            arguments,
            policy=self.policy,
            people=self.people,
            settings=self.settings,
        )
        if refused is not None:
            return refused
        actor = attempt.actor

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
                undecided = await self._approver_decision(attempt, token, taken)
                if undecided is not None:
                    return undecided
            refusal = await self._consume(attempt, capability, arguments, turn, token, taken)
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
                return await self._pending(attempt, capability, arguments, turn, notices, keep)
            else:
                attempt.confirmed_by = "approver" if waits else "owner"

        # 6. execute, bounded
        if not turn.reserve(cname, limit):
            return self._turn_limit(attempt, capability)
        if actor is not None and self.people is not None:
            try:
                spent = await self.people.spend(actor, cname)
            except StoreUnavailable as exc:
                return unavailable(attempt, exc, stage="policy")
            if spent is not None:
                return stop(
                    attempt, "policy", "rejected", spent.code, spent.message, reason=spent.reason
                )
        return await self._execute(attempt, capability, arguments, turn)

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
            and not self._waits_for_approver(attempt),
            actor=attempt.actor,
        )

    async def _execute(
        self, attempt: Attempt, capability: Capability, arguments: dict[str, Any], turn: Turn
    ) -> Outcome:
        import asyncio

        cname, cversion = capability.name, capability.version
        context = self._context(attempt, capability, arguments, turn)
        timeout = self._timeout(capability)
        try:
            result = await asyncio.wait_for(capability.handler(context), timeout)
        except CapabilityError as exc:
            attempt.extra["provider"] = context.provider
            return stop(
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
            return stop(
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
            return stop(
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
            return stop(
                attempt,
                "execute",
                "failed",
                Code.INVALID_RESULT,
                f"{cname} produced a result that breaks its schema",
            )
        size = len(json.dumps(result, ensure_ascii=False).encode("utf-8"))
        attempt.extra["result_bytes"] = size
        if size > capability.bounds.max_result_bytes:
            return stop(
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
