"""``GET /api/v1/models`` and ``POST /api/v1/models``: the model servers found on this
machine, and the owner's pick among their models."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from spyglass.service.errors import ApiError
from spyglass.service.models import ModelPick
from spyglass.service.state import Caller, ServiceState, State, require_owner

router = APIRouter(tags=["models"])


@router.get("/api/v1/models", operation_id="listModels", summary="The model in use and found")
async def list_models(state: State) -> dict[str, Any]:
    """What is in use (``status`` ``configured`` or ``using``), or what the owner may pick
    (``choose``), or that nothing was found (``none``); ``servers`` lists what answered.
    Looked for again while nothing is decided."""
    finder = state.models
    if finder is None:
        return _configured(state)
    if not finder.settled or not finder.message:
        await finder.find()
    return finder.as_dict()


@router.post(
    "/api/v1/models",
    operation_id="pickModel",
    summary="Use one of the models found on this machine (owner only); remembered",
)
async def pick_model(body: ModelPick, state: State, principal: Caller) -> dict[str, Any]:
    require_owner(principal)
    finder = state.models
    if finder is None or finder.owner_model:
        raise ApiError(409, "MODEL_SET", "the model is set in the settings (llm.model)")
    if not finder.found:
        await finder.find()
    try:
        finder.choose(body.base_url, body.model)
    except ValueError as exc:
        raise ApiError(404, "NOT_FOUND", str(exc)) from None
    return finder.as_dict()


def _configured(state: ServiceState) -> dict[str, Any]:
    llm = state.runtime.settings.llm
    return {
        "status": "configured",
        "message": f"using {llm.model or 'the model'} at {llm.base_url}",
        "base_url": llm.base_url,
        "model": llm.model or None,
        "servers": [],
    }
