"""``GET|POST /api/v1/policy``: the owner's switches (web access, and search and fetch under it)
and how often each of search and fetch asks (``approvals_search``, ``approvals_fetch``)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from spyglass.core.flagged import household
from spyglass.core.policy import policy_problem
from spyglass.service.models import PolicyBody
from spyglass.service.state import Caller, ServiceState, State, require_owner

router = APIRouter(tags=["policy"])


@router.get("/api/v1/policy", operation_id="getPolicy", summary="The owner's switches")
def get_policy(state: State) -> dict[str, Any]:
    """The switches and the approval modes; ``problem`` (code ``POLICY_UNREADABLE``, message,
    path) when the policy exists but cannot be read, which keeps every switch off until it is
    fixed."""
    body = _shown(state)
    problem = policy_problem(state.runtime.policy)
    if problem is not None:
        body["problem"] = problem.to_dict()
    return body


def _shown(state: ServiceState) -> dict[str, Any]:
    """Every switch, and each approval mode in force (set here, else ``[approvals]``)."""
    policy = state.runtime.policy
    body: dict[str, Any] = dict(policy.read())
    modes = household(policy.approvals(), state.runtime.settings)
    body.update({f"approvals_{key}": mode for key, mode in modes.items()})
    return body


@router.post(
    "/api/v1/policy",
    operation_id="setPolicy",
    summary="Turn web access, or web search or page fetching under it, on or off; choose how "
    "often search and fetch ask",
)
def set_policy(body: PolicyBody, state: State, principal: Caller) -> dict[str, Any]:
    require_owner(principal)
    policy = state.runtime.policy
    for key, value in body.changes().items():
        policy.set(key, value)
    for name, mode in body.approval_changes().items():
        policy.set_approval(name, None if mode == "default" else mode)
    return _shown(state)
