"""``GET|POST /api/v1/policy``: the owner's web-access switch."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from spyglass.core.policy import WEB_ACCESS, policy_problem
from spyglass.service.models import PolicyBody
from spyglass.service.state import State

router = APIRouter(tags=["policy"])


@router.get("/api/v1/policy", operation_id="getPolicy", summary="The owner's switches")
def get_policy(state: State) -> dict[str, Any]:
    """The switches; ``problem`` (code ``POLICY_UNREADABLE``, message, path) when the policy
    exists but cannot be read, which keeps every switch off until it is fixed."""
    policy = state.runtime.policy
    body: dict[str, Any] = {WEB_ACCESS: policy.read()[WEB_ACCESS]}
    problem = policy_problem(policy)
    if problem is not None:
        body["problem"] = problem.to_dict()
    return body


@router.post("/api/v1/policy", operation_id="setPolicy", summary="Turn web access on or off")
def set_policy(body: PolicyBody, state: State) -> dict[str, bool]:
    values = state.runtime.policy.set(WEB_ACCESS, body.web_access_enabled)
    return {WEB_ACCESS: values[WEB_ACCESS]}
