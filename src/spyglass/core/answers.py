"""The answers to a confirmation: approve with its token, decline, or wait for an approver.

:class:`Answers` is one of the executor's parts (with
:class:`~spyglass.core.permission.Permission`, :class:`~spyglass.core.expiry.ExpirySweep` and
:class:`~spyglass.core.flagged.Unasked`):
the executor's confirm stage asks it to :meth:`~Answers.issue` a card or to
:meth:`~Answers.approve` the call a token was given for, and the executor's ``adeny`` asks it
to :meth:`~Answers.decline` one. It audits nothing itself but the expiry of a card it takes
past its time (through the sweep): the executor audits every attempt once.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from spyglass.core.actor import AWAITING_APPROVAL, Actor, PersonalPolicy
from spyglass.core.attempt import Attempt, account, stop, unavailable
from spyglass.core.capability import Capability
from spyglass.core.confirmation import (
    TOKEN_TTL_SECONDS,
    Binding,
    ConfirmationStore,
    PendingRecord,
    Taken,
    canonical_json,
    new_token,
)
from spyglass.core.context import Turn
from spyglass.core.expiry import ExpirySweep
from spyglass.core.outcome import RECIPIENT, Code, Notice, Outcome, PendingConfirmation
from spyglass.core.parked import Keep
from spyglass.core.registry import Registry
from spyglass.errors import StoreUnavailable

logger = logging.getLogger(__name__)


class Answers:
    """Issues confirmation cards and takes their answers, for one executor.

    A token works once, only for the person it was issued for, only in its conversation and
    only for the exact call it was shown with.
    """

    def __init__(
        self,
        registry: Registry,
        confirmations: ConfirmationStore,
        expiry: ExpirySweep,
        *,
        people: PersonalPolicy | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.registry = registry
        self.confirmations = confirmations
        #: Audits the expiry of a card an answer takes past its time.
        self.expiry = expiry
        #: Where a person's calls wait for their approver, if anyone's do.
        self.people = people
        self.clock = clock

    def waits(self, actor: Actor | None) -> bool:
        """Whether someone else (an owner or a parent) approves this person's calls."""
        return actor is not None and actor.needs_approval and self.people is not None

    async def issue(
        self,
        attempt: Attempt,
        capability: Capability,
        arguments: dict[str, Any],
        turn: Turn,
        notices: tuple[Notice, ...],
        keep: Keep | None = None,
        reasons: tuple[str, ...] = (),
    ) -> Outcome:
        """A new card for this call: the ``pending_confirmation`` outcome, its record kept by
        ``keep`` or in the confirmation store (and, for a person whose calls someone else
        approves, put to that approver). ``reasons``: why it asks where the ``flagged`` rule
        could have let it run."""
        record = PendingRecord(
            token=new_token(),
            binding=Binding(
                capability.name,
                capability.version,
                canonical_json(arguments),
                turn.conversation_id,
                account(attempt.actor),
            ),
            invocation_id=attempt.invocation_id,
            expires_at=self.clock() + TOKEN_TTL_SECONDS,
            channel=attempt.channel,
        )
        waits = self.waits(attempt.actor)

        def pending(waiting_for: str | None) -> Outcome:
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
                    notices=tuple(n for n in notices if n.kind != RECIPIENT),
                    waiting_for=waiting_for,
                    provider=next((n.message for n in notices if n.kind == RECIPIENT), None),
                    reasons=reasons,
                ),
            )

        try:
            if keep is not None and not waits:
                # The caller keeps the record with its paused turn, in one store step.
                outcome = pending(None)
                await keep(record, outcome)
                return outcome
            await self.confirmations.put(record)
            waiting_for: str | None = None
            if waits:
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
            return unavailable(attempt, exc)
        return pending(waiting_for)

    async def approve(
        self,
        attempt: Attempt,
        capability: Capability,
        arguments: dict[str, Any],
        turn: Turn,
        token: str,
        taken: Taken | None = None,
    ) -> Outcome | None:
        """Spend ``token`` on this call: ``None`` when it approves exactly this call (the
        attempt then runs under the invocation id of the card), else the stop.

        Where an approver decides this person's calls, the token works only once they have
        approved, and is never spent while they have not decided. ``taken``: the token's
        record, taken by the caller already.
        """
        if self.waits(attempt.actor):
            undecided = await self._approver_decision(attempt, token, taken)
            if undecided is not None:
                return undecided
        return await self._consume(attempt, capability, arguments, turn, token, taken)

    async def decline(
        self,
        attempt: Attempt,
        token: str,
        conversation_id: str | None,
        taken: Taken | None = None,
    ) -> Outcome:
        """The person said no: the token is spent and the outcome to audit is returned.

        A token that had already expired is also audited as the expiry of its card. Only the
        person the call was proposed for can decline it with the token.
        """
        try:
            record = await self._take_own(token, attempt, taken)
        except StoreUnavailable as exc:
            return unavailable(attempt, exc)
        if record is not None and record.expires_at < self.clock():
            return stop(
                attempt,
                "confirm",
                "denied",
                Code.INVALID_CONFIRMATION,
                "this confirmation had already expired when it was declined; nothing ran",
                reason="expired",
            )
        if record is None or record.binding.conversation_id != conversation_id:
            if record is not None:
                # Sent to the wrong conversation: the card still waits in its own, unspent.
                await self._restore(record)
            return stop(
                attempt,
                "confirm",
                "rejected",
                Code.INVALID_CONFIRMATION,
                "this confirmation is unknown, already answered or expired; ask again",
                reason="unknown",
            )
        attempt.capability = self.registry.get(record.binding.capability, record.binding.version)
        attempt.name, attempt.version = record.binding.capability, record.binding.version
        attempt.invocation_id = record.invocation_id
        return stop(attempt, "confirm", "denied", Code.DENIED, "the owner declined this call")

    def refused(self, attempt: Attempt, reason: str) -> Outcome:
        """The outcome of an answer a front end refused before it could reach a card (see
        :meth:`~spyglass.core.executor.Executor.refuse_confirmation`): nothing is taken."""
        return stop(
            attempt,
            "confirm",
            "rejected",
            Code.INVALID_CONFIRMATION,
            "this confirmation is unknown, already answered, expired or belongs to another "
            "conversation; ask again",
            reason=reason,
        )

    async def give_back(self, taken: Taken | None) -> None:
        """Put back a record its caller took but no answer used (the call stopped before its
        confirm stage), so that its card still expires, and is audited, as before."""
        if taken is not None and not taken.used and taken.record is not None:
            taken.used = True
            await self._restore(taken.record)

    async def _approver_decision(
        self, attempt: Attempt, token: str, taken: Taken | None = None
    ) -> Outcome | None:
        """A stop while the approver has not approved; ``None`` once they have."""
        assert attempt.actor is not None and self.people is not None
        try:
            decision = await self.people.decision(attempt.actor, token)
        except StoreUnavailable as exc:
            return unavailable(attempt, exc)
        if decision == "approved":
            return None
        if decision == "unknown":
            return self.refused(attempt, "unknown")
        if decision == "waiting":
            return stop(
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
            record = await self._take_own(token, attempt, taken)
        except StoreUnavailable as exc:
            return unavailable(attempt, exc)
        if record is not None:
            attempt.invocation_id = record.invocation_id
        # A card a sweep found expired stays in the store (marked audited) until taken, so
        # its expiry is read from the record itself.
        usable = self._usable(
            attempt,
            record,
            expired="nobody approved this call before it expired; it did not run. Ask again",
        )
        if isinstance(usable, Outcome):
            return usable
        return stop(
            attempt,
            "confirm",
            "denied",
            Code.DENIED,
            "an owner or a parent declined this call; it did not run",
        )

    async def _consume(
        self,
        attempt: Attempt,
        capability: Capability,
        arguments: dict[str, Any],
        turn: Turn,
        token: str,
        taken: Taken | None = None,
    ) -> Outcome | None:
        cname, cversion = capability.name, capability.version
        try:
            record = await self._take_own(token, attempt, taken)
        except StoreUnavailable as exc:
            # Fail closed: without the store nobody can tell whether this call was approved.
            return unavailable(attempt, exc)
        # Expired: taken here past its time (perhaps already found unanswered by a sweep).
        usable = self._usable(
            attempt, record, expired="this confirmation expired before it was approved; ask again"
        )
        if isinstance(usable, Outcome):
            return usable
        record = usable
        expected = Binding(
            cname,
            cversion,
            canonical_json(arguments),
            turn.conversation_id,
            account(attempt.actor),
        )
        if record.binding.conversation_id != expected.conversation_id:
            # Sent to the wrong conversation: the card still waits in its own, unspent.
            await self._restore(record)
            return stop(
                attempt,
                "confirm",
                "rejected",
                Code.INVALID_CONFIRMATION,
                "this confirmation belongs to another conversation",
                reason="conversation",
            )
        if record.binding != expected:
            return stop(
                attempt,
                "confirm",
                "rejected",
                Code.INVALID_CONFIRMATION,
                "this confirmation was given for a different call; ask again",
                reason="mismatch",
            )
        attempt.invocation_id = record.invocation_id
        return None

    def _usable(
        self, attempt: Attempt, record: PendingRecord | None, *, expired: str
    ) -> PendingRecord | Outcome:
        """The record of a taken token, or the stop when it was taken past its card's time
        (``expired`` says so) or not found."""
        if record is not None and record.expires_at < self.clock():
            return stop(
                attempt, "confirm", "denied", Code.INVALID_CONFIRMATION, expired, reason="expired"
            )
        if record is None:
            return stop(
                attempt,
                "confirm",
                "rejected",
                Code.INVALID_CONFIRMATION,
                "this confirmation is unknown or was already used; ask again",
                reason="unknown",
            )
        return record

    async def _take_own(
        self, token: object, attempt: Attempt, taken: Taken | None = None
    ) -> PendingRecord | None:
        """Take ``token``'s record for the person ``attempt`` acts for, settled; ``None`` for
        an unknown token and for someone else's. ``taken``: the record, taken by the caller
        already. Raises :class:`StoreUnavailable`."""
        if taken is not None:
            record = taken.use()
        else:
            record = await self.confirmations.take(token) if isinstance(token, str) else None
        if record is not None and record.binding.account_id != account(attempt.actor):
            # Another person's token (guessed, swapped or replayed): it stays theirs, and the
            # answer is the one an unknown token gets, so its existence does not leak.
            await self._restore(record)
            return None
        if record is not None:
            self.expiry.settled(record, attempt.channel)
        return record

    async def _restore(self, record: PendingRecord) -> None:
        """Put back a record taken by someone it does not belong to (before it was settled,
        so its expiry is still tracked under the channel it was issued on)."""
        try:
            await self.confirmations.put(record)
        except StoreUnavailable:
            logger.warning("a confirmation taken by the wrong person could not be put back")
