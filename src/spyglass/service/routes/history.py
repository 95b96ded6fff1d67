"""``GET /api/v1/conversations[/{id}]`` and ``DELETE /api/v1/conversations/{id}``."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Annotated, Any

from fastapi import APIRouter, Query
from fastapi.responses import Response

from spyglass.accounts.holders import NOBODY
from spyglass.service.errors import ApiError
from spyglass.service.models import ShareBody
from spyglass.service.ownership import may_read, owns
from spyglass.service.state import Caller, State

router = APIRouter(tags=["history"])


def _missing(conversation_id: str) -> ApiError:
    return ApiError(404, "NOT_FOUND", f"no conversation with id {conversation_id[:64]!r}")


@router.get(
    "/api/v1/conversations",
    operation_id="listConversations",
    summary="Conversations, newest first; q searches what the user and the model wrote",
)
async def list_conversations(
    state: State,
    principal: Caller,
    q: Annotated[str | None, Query(max_length=500)] = None,
) -> dict[str, Any]:
    """The caller's own conversations (and, for an owner, those others share)."""
    found = await state.history.conversations(q)
    holders = await state.accounts.conversations()
    me = principal.account
    sees_shared = me.manages

    def visible(conversation_id: str) -> bool:
        # (Those from before accounts existed were claimed for the owner at start.)
        holder, shared = holders.get(conversation_id, (NOBODY, False))
        return holder == me.id or (shared and sees_shared)

    return {"conversations": [c for c in found if visible(c["id"])]}


@router.get(
    "/api/v1/conversations/{conversation_id}",
    operation_id="getConversation",
    summary="One conversation with its messages",
)
async def get_conversation(conversation_id: str, state: State, principal: Caller) -> dict[str, Any]:
    if not await may_read(state, principal, conversation_id):
        raise _missing(conversation_id)
    conversation = await state.history.conversation(conversation_id)
    if conversation is None:
        raise _missing(conversation_id)
    return conversation


@router.delete(
    "/api/v1/conversations/{conversation_id}",
    operation_id="deleteConversation",
    summary="Delete a conversation and its messages",
    status_code=204,
)
async def delete_conversation(conversation_id: str, state: State, principal: Caller) -> Response:
    if not await owns(state, principal, conversation_id):
        raise _missing(conversation_id)
    if not await state.history.delete(conversation_id):
        raise _missing(conversation_id)
    await state.accounts.forget(conversation_id)
    return Response(status_code=204)


@router.put(
    "/api/v1/conversations/{conversation_id}/shared",
    operation_id="shareConversation",
    summary="Share one's own conversation with the owners (true), or stop sharing (false)",
)
async def share_conversation(
    conversation_id: str, body: ShareBody, state: State, principal: Caller
) -> dict[str, Any]:
    if not await owns(state, principal, conversation_id) or not await state.history.exists(
        conversation_id
    ):
        raise _missing(conversation_id)
    await state.accounts.claim(conversation_id, principal.account.id)
    await state.accounts.share(conversation_id, body.shared)
    return {"conversation_id": conversation_id, "shared": body.shared}


@router.get(
    "/api/v1/receipts",
    operation_id="listReceipts",
    summary="What left the house with each answer: an owner sees everyone's, others their own",
)
async def list_receipts(
    state: State,
    principal: Caller,
    days: Annotated[int, Query(ge=1, le=365)] = 7,
) -> dict[str, Any]:
    since = datetime.now(UTC) - timedelta(days=days)
    found = await state.history.receipts(since)
    holders = await state.accounts.conversations()
    names = {a.id: a.name for a in await state.accounts.all()}
    me = principal.account
    out = []
    for receipt in found:
        holder, _ = holders.get(str(receipt.get("conversation_id")), (NOBODY, False))
        if holder == me.id or me.manages:
            # What left the house, by whom; never the conversation itself.
            mine = holder == me.id
            # Someone else's receipt says what left the house, never which conversation or
            # its title (the person's own words).
            entry = {
                k: v
                for k, v in receipt.items()
                if mine or k not in ("conversation_id", "title", "turn_id")
            }
            entry["person"] = names.get(holder, "someone removed")
            out.append(entry)
    return {"receipts": out}
