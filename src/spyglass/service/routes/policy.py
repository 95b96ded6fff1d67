"""``GET|POST /api/v1/policy``: the owner's web-access switch."""

from __future__ import annotations

from fastapi import APIRouter

from spyglass.core.policy import WEB_ACCESS
from spyglass.service.models import PolicyBody
from spyglass.service.state import State

router = APIRouter(tags=["policy"])


@router.get("/api/v1/policy", operation_id="getPolicy", summary="The owner's switches")
def get_policy(state: State) -> dict[str, bool]:
    return {WEB_ACCESS: state.runtime.policy.read()[WEB_ACCESS]}


@router.post("/api/v1/policy", operation_id="setPolicy", summary="Turn web access on or off")
def set_policy(body: PolicyBody, state: State) -> dict[str, bool]:
    values = state.runtime.policy.set(WEB_ACCESS, body.web_access_enabled)
    return {WEB_ACCESS: values[WEB_ACCESS]}
