"""``GET|POST /api/v1/policy``: the owner's switches (web access, and search and fetch under it)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from spyglass.core.policy import policy_problem
from spyglass.service.models import PolicyBody
from spyglass.service.state import Caller, State, require_owner

router = APIRouter(tags=["policy"])


@router.get("/api/v1/policy", operation_id="getPolicy", summary="The owner's switches")
def get_policy(state: State) -> dict[str, Any]:
    """The switches; ``problem`` (code ``POLICY_UNREADABLE``, message, path) when the policy
    exists but cannot be read, which keeps every switch off until it is fixed."""
    policy = state.runtime.policy
    body: dict[str, Any] = dict(policy.read())
    problem = policy_problem(policy)
    if problem is not None:
        body["problem"] = problem.to_dict()
    return body


@router.post(
    "/api/v1/policy",
    operation_id="setPolicy",
    summary="Turn web access, or web search or page fetching under it, on or off",
)
def set_policy(body: PolicyBody, state: State, principal: Caller) -> dict[str, bool]:
    require_owner(principal)
    policy = state.runtime.policy
    for key, value in body.changes().items():
        policy.set(key, value)
    return policy.read()
