"""Expiry of confirmations: sweeps that audit every card nobody answered in time."""

from __future__ import annotations

import time
from collections.abc import Callable

from spyglass.core.attempt import Attempt, audit_event, stop
from spyglass.core.audit import AuditSink
from spyglass.core.confirmation import CLAIM_BATCH, ConfirmationStore, PendingRecord
from spyglass.core.outcome import Code
from spyglass.core.registry import Registry
from spyglass.errors import StoreUnavailable

#: The sweep that runs before calls asks the store at most this often (seconds); the service
#: also sweeps on a timer. Asking on every call would add a store round trip to each.
SWEEP_EVERY_SECONDS = 1.0


class ExpirySweep:
    """Finds and audits expired confirmation cards, for one executor.

    Each expired card is one ``CONFIRMATION_EXPIRED`` event, whichever process notices it:
    a sweep (:meth:`sweep_expired`, :meth:`sweep_due`) or an answer that takes a card past
    its time (:meth:`settled`).
    """

    def __init__(
        self,
        registry: Registry,
        confirmations: ConfirmationStore,
        audit: AuditSink,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.registry = registry
        self.confirmations = confirmations
        self.audit = audit
        self.clock = clock
        #: When this sweep last asked the store for expired cards (its clock).
        self.swept_at: float | None = None

    async def sweep_expired(self) -> int:
        """Audit every confirmation that expired unanswered, whichever process issued it.

        Each such card is one ``CONFIRMATION_EXPIRED`` event, written by whoever notices it
        first: a sweep in any process sharing the store (claiming it is atomic) or a late
        answer. Returns how many this sweep claimed.
        """
        now = self.clock()
        self.swept_at = now
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
        """:meth:`sweep_expired`, unless this sweep ran less than a second ago."""
        now = self.clock()
        if self.swept_at is not None and 0 <= now - self.swept_at < SWEEP_EVERY_SECONDS:
            return 0
        return await self.sweep_expired()

    def settled(self, record: PendingRecord, channel: str) -> None:
        """An answer took ``record``: if it had expired unnoticed, its card's expiry is
        audited now (a sweep that claimed it first has audited it already)."""
        if record.expires_at < self.clock() and not record.expiry_audited:
            self._audit_expiry(record, record.channel or channel)

    def _audit_expiry(self, record: PendingRecord, channel: str) -> None:
        attempt = Attempt(
            invocation_id=record.invocation_id, channel=channel, started=time.perf_counter()
        )
        attempt.capability = self.registry.get(record.binding.capability, record.binding.version)
        attempt.name, attempt.version = record.binding.capability, record.binding.version
        outcome = stop(
            attempt,
            "confirm",
            "denied",
            Code.CONFIRMATION_EXPIRED,
            "nobody answered this confirmation before it expired",
            reason="expired",
        )
        self.audit.record(audit_event(attempt, outcome))
