"""``POST /api/v1/conversation/message``: a turn as JSON, or as Server-Sent Events."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

from spyglass.conversation.turn import TurnRefused
from spyglass.service.errors import ApiError
from spyglass.service.models import MessageRequest
from spyglass.service.sse import EventStreamResponse
from spyglass.service.state import State

router = APIRouter(tags=["conversation"])


@router.post(
    "/api/v1/conversation/message",
    operation_id="sendMessage",
    summary="Start or continue a turn, or answer a pending confirmation",
    responses={200: {"content": {"text/event-stream": {}}}},
)
async def send_message(body: MessageRequest, request: Request, state: State) -> Response:
    service = state.conversations
    answer: tuple[str, bool] | None = None
    try:
        if body.confirmation is not None:
            assert body.conversation_id is not None  # checked by the model
            turn = await service.resume(body.conversation_id, body.confirmation.token)
            answer = (body.confirmation.token, body.confirmation.approve)
        else:
            assert body.text is not None
            turn = await service.start(body.conversation_id, body.text)
    except TurnRefused as exc:
        raise ApiError(exc.status, exc.code, exc.message) from None
    events = service.run(turn, answer)
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


class _Raw(Response):
    """Lets a plain ASGI response pass through FastAPI's ``Response`` return type."""

    def __init__(self, inner: EventStreamResponse) -> None:
        super().__init__()
        self.inner = inner

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        await self.inner(scope, receive, send)
