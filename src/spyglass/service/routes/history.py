"""``GET /api/v1/conversations[/{id}]`` and ``DELETE /api/v1/conversations/{id}``."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query
from fastapi.responses import Response

from spyglass.service.errors import ApiError
from spyglass.service.state import State

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
    q: Annotated[str | None, Query(max_length=500)] = None,
) -> dict[str, Any]:
    return {"conversations": await state.history.conversations(q)}


@router.get(
    "/api/v1/conversations/{conversation_id}",
    operation_id="getConversation",
    summary="One conversation with its messages",
)
async def get_conversation(conversation_id: str, state: State) -> dict[str, Any]:
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
async def delete_conversation(conversation_id: str, state: State) -> Response:
    if not await state.history.delete(conversation_id):
        raise _missing(conversation_id)
    return Response(status_code=204)
