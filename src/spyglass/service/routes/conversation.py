"""``POST /api/v1/conversation/message``: a turn as JSON, or as Server-Sent Events;
``POST /api/v1/conversation/stop``: end the turn running for a conversation."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

from spyglass.conversation.turn import DEFERRED, Event, TurnRefused
from spyglass.core.confirmation import ConfirmationReply
from spyglass.service.auth import Principal
from spyglass.service.errors import ApiError
from spyglass.service.models import MessageRequest, StopRequest
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
    answers: list[ConfirmationReply] = []
    try:
        if body.answers():
            assert body.conversation_id is not None  # checked by the model
            tokens = [a.token for a in body.answers()]
            approved = [a.token for a in body.answers() if a.approve]
            waits = bool(approved) and actor.needs_approval
            # Where one store holds both, whose conversation it is is checked in the claim's
            # own step; otherwise (and before asking whether an approver has decided) first.
            in_claim = not waits and service.pending.checks_holders(state.accounts)
            if not in_claim and not await owns(state, principal, body.conversation_id):
                # Another person's conversation answers exactly as an unknown token does.
                await service.resume(UNKNOWN_CONVERSATION, tokens, actor)
            for token in approved if waits else []:
                await _approved_yet(state, principal, token)
            holder = principal.account.id if in_claim else None
            turn = await service.resume(body.conversation_id, tokens, actor, holder=holder)
            answers = [ConfirmationReply(a.token, a.approve, a.scope) for a in body.answers()]
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
    events = service.run(turn, answers, actor)
    if answers:
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
    if error is not None and error["code"] == DEFERRED:
        # A later answer of a batch met the outage (the earlier ones ran): the turn is
        # paused again with the cards still waiting, and the same batch carries it on.
        raise ApiError(503, DEFERRED, error["message"])
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


@router.post(
    "/api/v1/conversation/stop",
    operation_id="stopTurn",
    summary="End the turn running for a conversation at once (calls not started never start)",
)
async def stop_turn(body: StopRequest, state: State, principal: Caller) -> JSONResponse:
    """The call under way is cancelled and the turn ends with ``done`` as usual, what was
    produced kept. Only the process running the turn can stop it: ``stopped`` is false when
    none runs here (closing the turn's stream stops it wherever it runs)."""
    if not await owns(state, principal, body.conversation_id):
        raise ApiError(
            404,
            "NOT_FOUND",
            f"no conversation with id {body.conversation_id[:64]!r}; use the conversation_id "
            "the turn's first event gave",
        )
    runners = {id(r): r for r in (state.conversations, state.unrecorded) if r is not None}
    stopped = [r.stop(body.conversation_id) for r in runners.values()]
    return JSONResponse({"conversation_id": body.conversation_id, "stopped": any(stopped)})


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
