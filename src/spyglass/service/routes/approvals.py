"""The approvers' queue: calls of a child (or anyone marked) waiting for an owner or parent.

``GET /api/v1/approvals`` shows an approver every waiting call with the person, the literal
query or URL and the privacy findings; anyone else sees only their own (so their page can
say who it waits for). Only an approver answers, once: the call's token stays with the
person who asked and works, once, only after the approval. An approval with ``"scope":
"conversation"`` also lets that person's later calls of the same capability in the same
conversation run under the flagged rule (a call a check flags still waits).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from spyglass.accounts.queue import WaitingCall
from spyglass.core.flagged import OWN_CHANNEL
from spyglass.service.errors import ApiError
from spyglass.service.models import ApprovalAnswer
from spyglass.service.state import Caller, ServiceState, State

router = APIRouter(tags=["approvals"])


async def _names(state: ServiceState) -> dict[str, str]:
    """Every account's name by id, for naming whose call waits."""
    return {a.id: a.name for a in await state.accounts.all()}


def _shown(call: WaitingCall, names: dict[str, str], now: float) -> dict[str, Any]:
    return {
        "id": call.id,
        "person": names.get(call.account_id, "someone removed"),
        "capability": call.capability,
        "arguments": call.arguments,
        "notices": call.notices,
        "decision": call.decision,
        "expires_in_seconds": max(0, round(call.expires_at - now)),
        # Made in a conversation: it can also be allowed for the rest of that conversation.
        "in_conversation": call.conversation_id is not None,
    }


@router.get(
    "/api/v1/approvals",
    operation_id="listApprovals",
    summary="Calls waiting for an owner or a parent (an approver sees all; others their own)",
)
async def list_approvals(principal: Caller, state: State) -> dict[str, Any]:
    account = principal.account
    approver = account.may_approve
    calls = await state.accounts.waiting(account_id=None if approver else account.id)
    names = await _names(state)
    now = state.runtime.clock()
    return {
        "may_approve": approver,
        "calls": [_shown(call, names, now) for call in calls],
    }


@router.post(
    "/api/v1/approvals/{call_id}",
    operation_id="answerApproval",
    summary="Approve or decline a waiting call (owners and parents; once, before it expires)",
)
async def answer_approval(
    call_id: str, body: ApprovalAnswer, principal: Caller, state: State
) -> dict[str, Any]:
    account = principal.account
    if not account.may_approve:
        raise ApiError(
            403, "APPROVER_ONLY", "only an owner or a parent can answer calls that wait for them"
        )
    # A call of one's own is never approved by oneself (an owner's never waits anyway).
    call = await state.accounts.waiting_call(call_id[:64])
    if call is None or call.account_id == account.id:
        raise _gone()
    decided = await state.accounts.decide(call.id, account.id, body.approve)
    if decided is None:
        raise _gone()
    shown = _shown(decided, await _names(state), state.runtime.clock())
    if body.approve and body.scope == "conversation":
        shown["scope"] = "conversation" if await _allow(state, decided) else "call"
    return shown


async def _allow(state: ServiceState, call: WaitingCall) -> bool:
    """The approver's "Allow for this conversation" for the person whose call this is."""
    person = await state.accounts.get(call.account_id)
    if person is None or call.conversation_id is None:
        return False
    return await state.runtime.executor.allow_for_conversation(
        call.conversation_id,
        call.capability,
        actor=await state.runtime.actors.actor(person),
        channel=OWN_CHANNEL,
        by_approver=True,
    )


def _gone() -> ApiError:
    return ApiError(
        404,
        "NOT_FOUND",
        "no such waiting call: it was answered already, has expired, or never existed",
    )
