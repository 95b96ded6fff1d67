"""``POST /api/v1/conversation/message``: a turn as JSON, or as Server-Sent Events."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

from spyglass.conversation.turn import DEFERRED, Event, TurnRefused
from spyglass.core.confirmation import ConfirmationReply
from spyglass.service.auth import Principal
from spyglass.service.errors import ApiError
from spyglass.service.models import MessageRequest
from spyglass.service.ownership import UNKNOWN_CONVERSATION, owns
from spyglass.service.sse import EventStreamResponse
from spyglass.service.state import Caller, ServiceState, State

router = APIRouter(tags=["conversation"])


@router.post(
    "/api/v1/conversation/message",
    operation_id="sendMessage",
    summary="Start or continue a turn, or answer a pending confirmation",
    responses={200: {"content": {"text/event-stream": {}}}},
)
async def send_message(
    body: MessageRequest, request: Request, state: State, principal: Caller
) -> Response:
    service = state.runner(principal)
    actor = principal.actor
    answer: ConfirmationReply | None = None
    try:
        if body.confirmation is not None:
            assert body.conversation_id is not None  # checked by the model
            token = body.confirmation.token
            waits = body.confirmation.approve and actor.needs_approval
            # Where one store holds both, whose conversation it is is checked in the claim's
            # own step; otherwise (and before asking whether an approver has decided) first.
            in_claim = not waits and service.pending.checks_holders(state.accounts)
            if not in_claim and not await owns(state, principal, body.conversation_id):
                # Another person's conversation answers exactly as an unknown token does.
                await service.resume(UNKNOWN_CONVERSATION, token, actor)
            if waits:
                await _approved_yet(state, principal, token)
            holder = principal.account.id if in_claim else None
            turn = await service.resume(body.conversation_id, token, actor, holder=holder)
            answer = ConfirmationReply(token, body.confirmation.approve, body.confirmation.scope)
        else:
            assert body.text is not None
            account_id = principal.account.id
            # Another person's conversation answers exactly as an unknown one does.
            turn = await service.start(
                body.conversation_id,
                body.text,
                actor,
                claim=lambda conversation_id: state.accounts.claim(conversation_id, account_id),
                may_continue=lambda conversation_id: owns(state, principal, conversation_id),
            )
    except TurnRefused as exc:
        raise ApiError(exc.status, exc.code, exc.message) from None
    events = service.run(turn, answer, actor)
    if answer is not None:
        events = await _answered(events)
    if "text/event-stream" in request.headers.get("accept", ""):
        stall = state.runtime.settings.server.stream_stall_seconds
        return _Raw(EventStreamResponse(events, stall_seconds=stall))
    error: dict[str, Any] | None = None
    done: dict[str, Any] = {}
    async for name, data in events:
        if name == "error":
            error = data["error"]
        elif name == "done":
            done = data
    if error is not None:
        # The conversation is kept: its id comes back so the client can try again in it.
        return JSONResponse(
            {
                "error": error,
                "conversation_id": done.get("conversation_id"),
                "turn_id": done.get("turn_id"),
            },
            status_code=502,
        )
    return JSONResponse(done)


async def _answered(events: AsyncGenerator[Event, None]) -> AsyncGenerator[Event, None]:
    """The events of a turn an answer resumed, once the answer's own outcome is known: 503
    ``STORE_UNAVAILABLE`` when a store's outage kept its call from running (the turn is
    paused again with its token, so the same answer can be sent again), never a turn that
    ends with the call refused."""
    first: list[Event] = []
    async for item in events:
        first.append(item)
        if item[0] != "turn":
            break
    if first and first[-1][0] == "error" and first[-1][1]["error"]["code"] == DEFERRED:
        async for _ in events:
            pass  # (the turn's own ending: nothing of it is kept)
        raise ApiError(503, DEFERRED, first[-1][1]["error"]["message"])

    async def replayed() -> AsyncGenerator[Event, None]:
        for item in first:
            yield item
        async for item in events:
            yield item

    return replayed()


class _Raw(Response):
    """Lets a plain ASGI response pass through FastAPI's ``Response`` return type."""

    def __init__(self, inner: EventStreamResponse) -> None:
        super().__init__()
        self.inner = inner

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        await self.inner(scope, receive, send)


async def _approved_yet(state: ServiceState, principal: Principal, token: str) -> None:
    """409 while the person's call still waits for an owner or a parent: their turn is left
    paused as it is, so the answer can come later."""
    decision = await state.accounts.decision(token, principal.account.id)
    if decision == "waiting":
        raise ApiError(
            409,
            "AWAITING_APPROVAL",
            "this call is waiting for an owner or a parent to approve it; it has not run. "
            "Send the approval again once they have answered",
        )
