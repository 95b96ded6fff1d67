"""The approvers' queue in the accounts store: calls waiting for an owner or a parent."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from spyglass.accounts.runner import Execute, Runner
from spyglass.core.actor import Decision
from spyglass.core.confirmation import token_digest


@dataclass(frozen=True)
class WaitingCall:
    """A call in the approvers' queue."""

    id: str
    account_id: str
    conversation_id: str | None
    capability: str
    arguments: dict[str, Any]
    notices: list[dict[str, Any]]
    created_at: float
    expires_at: float
    decision: Decision
    decided_by: str | None


def _waiting(row: Sequence[Any]) -> WaitingCall:
    return WaitingCall(
        id=row[0],
        account_id=row[1],
        conversation_id=row[2],
        capability=row[3],
        arguments=json.loads(row[4]),
        notices=json.loads(row[5]),
        created_at=float(row[6]),
        expires_at=float(row[7]),
        decision=row[8],
        decided_by=row[9],
    )


class ApprovalQueue:
    """The waiting-calls part of :class:`~spyglass.accounts.store.AccountStore`."""

    runner: Runner
    clock: Callable[[], float]

    async def ask(
        self,
        token: str,
        account_id: str,
        conversation_id: str | None,
        capability: str,
        arguments: Mapping[str, Any],
        notices: Sequence[Mapping[str, Any]],
        expires_at: float,
    ) -> str:
        """Queue a call for approval; returns its id in the queue (never the token)."""
        call_id = uuid.uuid4().hex
        now = self.clock()

        def work(run: Execute) -> None:
            # Answered or expired entries are kept for a while, so a page can still tell
            # the person what happened; past that they are dropped.
            run("DELETE FROM approvals WHERE expires_at < ?", (now - 3600,))
            run(
                "INSERT INTO approvals(id, digest, account_id, conversation_id, capability, "
                "arguments, notices, created_at, expires_at) VALUES (?,?,?,?,?,?,?,?,?)",
                (
                    call_id,
                    token_digest(token),
                    account_id,
                    conversation_id,
                    capability,
                    json.dumps(dict(arguments), ensure_ascii=False),
                    json.dumps([dict(n) for n in notices], ensure_ascii=False),
                    now,
                    expires_at,
                ),
            )

        await self.runner.transaction(work)
        return call_id

    async def waiting(self, *, account_id: str | None = None) -> list[WaitingCall]:
        """Calls not yet expired, oldest first (only ``account_id``'s when given)."""
        now = self.clock()
        sql = (
            "SELECT id, account_id, conversation_id, capability, arguments, notices, "
            "created_at, expires_at, decision, decided_by FROM approvals WHERE expires_at >= ?"
        )
        params: tuple[Any, ...] = (now,)
        if account_id is not None:
            sql += " AND account_id = ?"
            params += (account_id,)
        rows = await self.runner.transaction(lambda run: run(sql + " ORDER BY created_at", params))
        return [_waiting(row) for row in rows]

    async def waiting_call(self, call_id: str) -> WaitingCall | None:
        rows = await self.runner.transaction(
            lambda run: run(
                "SELECT id, account_id, conversation_id, capability, arguments, notices, "
                "created_at, expires_at, decision, decided_by FROM approvals WHERE id = ?",
                (call_id,),
            )
        )
        return _waiting(rows[0]) if rows else None

    async def decide(self, call_id: str, approver_id: str, approve: bool) -> WaitingCall | None:
        """Answer a waiting call once; ``None`` if unknown, answered already or expired."""
        now = self.clock()
        decision = "approved" if approve else "denied"

        def work(run: Execute) -> WaitingCall | None:
            rows = run(
                "UPDATE approvals SET decision = ?, decided_by = ? "
                "WHERE id = ? AND decision = 'waiting' AND expires_at >= ? "
                "RETURNING id, account_id, conversation_id, capability, arguments, notices, "
                "created_at, expires_at, decision, decided_by",
                (decision, approver_id, call_id, now),
            )
            return _waiting(rows[0]) if rows else None

        return await self.runner.transaction(work)

    async def decision(self, token: str, account_id: str) -> Decision:
        """What was decided about ``account_id``'s call under ``token``: ``unknown`` when no
        call of theirs waits under it, and a call nobody approved before it expired counts as
        denied."""
        rows = await self.runner.transaction(
            lambda run: run(
                "SELECT decision, expires_at FROM approvals WHERE digest = ? AND account_id = ?",
                (token_digest(token), account_id),
            )
        )
        if not rows:
            # Not a call that waits: a guessed or mistyped token is refused as unknown, never
            # told to wait for an approval nobody was asked for.
            return "unknown"
        value = str(rows[0][0])
        if value == "approved":
            return "approved"
        if value == "denied" or float(rows[0][1]) < self.clock():
            return "denied"
        return "waiting"
