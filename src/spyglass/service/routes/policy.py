"""``GET|POST /api/v1/policy``: the owner's switches (web access, and search and fetch under it)."""

from __future__ import annotations

from fastapi import APIRouter

from spyglass.service.models import PolicyBody
from spyglass.service.state import State

router = APIRouter(tags=["policy"])


@router.get("/api/v1/policy", operation_id="getPolicy", summary="The owner's switches")
def get_policy(state: State) -> dict[str, bool]:
    return state.runtime.policy.read()


@router.post(
    "/api/v1/policy",
    operation_id="setPolicy",
    summary="Turn web access, or web search or page fetching under it, on or off",
)
def set_policy(body: PolicyBody, state: State) -> dict[str, bool]:
    policy = state.runtime.policy
    for key, value in body.changes().items():
        policy.set(key, value)
    return policy.read()
