"""``GET /api/v1/capabilities`` and ``POST /api/v1/capabilities/{name}/invoke``."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from spyglass.service.errors import ApiError
from spyglass.service.models import InvokeRequest
from spyglass.service.state import Caller, State

router = APIRouter(tags=["capabilities"])

CHANNEL = "console"


@router.get("/api/v1/capabilities", operation_id="listCapabilities", summary="The registry")
def list_capabilities(state: State) -> dict[str, Any]:
    return {"capabilities": [c.describe() for c in state.runtime.registry]}


@router.post(
    "/api/v1/capabilities/{name}/invoke",
    operation_id="invokeCapability",
    summary="Invoke a capability directly (same confirmation flow); answers the Outcome",
)
async def invoke(name: str, body: InvokeRequest, state: State, principal: Caller) -> JSONResponse:
    executor = state.runtime.executor
    if executor.registry.get(name) is None:
        known = ", ".join(sorted({c.name for c in executor.registry}))
        raise ApiError(404, "NOT_FOUND", f"no capability named {name[:64]!r}; known: {known}")
    confirmation = body.confirmation
    if confirmation is not None and not confirmation.approve:
        outcome = await executor.adeny(confirmation.token, channel=CHANNEL, actor=principal.actor)
    else:
        outcome = await executor.ainvoke(
            name,
            body.version,
            body.arguments,
            channel=CHANNEL,
            confirmation_token=confirmation.token if confirmation else None,
            actor=principal.actor,
        )
    if outcome.error is not None and outcome.error.code == "INVALID_CONFIRMATION":
        raise ApiError(400, "INVALID_CONFIRMATION", outcome.error.message)
    # Any Outcome is an answer (200); its ``status`` says what happened.
    return JSONResponse(outcome.to_dict())
