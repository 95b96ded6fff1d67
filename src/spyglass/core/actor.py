"""Who a call is made for, as the core sees them, and the seam that holds their permissions.

The core knows a person only as an :class:`Actor`: an opaque account reference, the
pseudonym the audit log records and whether their calls wait for someone else. What the
person may do is answered by a :class:`PersonalPolicy` (``spyglass.accounts.people`` in
production), asked by the executor in its policy stage, so every front end gets the same
answer from one place.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from spyglass.core.outcome import Notice
from spyglass.settings import Settings

#: What an approver decided about a waiting call.
Decision = Literal["waiting", "approved", "denied", "unknown"]

#: A person's call was refused by their own permissions (the owner's switches were on).
PERSONAL_POLICY = "PERSON_NOT_ALLOWED"
#: A person's daily call budget is spent.
BUDGET_EXCEEDED = "BUDGET_EXCEEDED"
#: A call that waits for an owner or a parent was answered before they decided.
AWAITING_APPROVAL = "AWAITING_APPROVAL"


@dataclass(frozen=True)
class Actor:
    """The person a call is made for. ``pseudonym`` is stable per person and names nobody."""

    account_id: str
    pseudonym: str
    #: Their calls are approved by an owner or a parent, never by themselves.
    needs_approval: bool = False
    #: What they may use, as known when their request began (what the model is offered);
    #: ``None``: whatever the owner's switches allow. The executor asks afresh per call.
    capabilities: frozenset[str] | None = None
    #: Their own approval mode per ``[approvals]`` key (``{"fetch": "each"}``), as known when
    #: their request began; a key left out follows the household's.
    approvals: Mapping[str, str] = field(default_factory=dict, compare=False)
    #: What the :class:`PersonalPolicy` read about them as their request was authenticated,
    #: opaque to the core; the policy may answer a check from it while it is fresh.
    read: object = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Refusal:
    """Why a person may not make a call: a code and a message they can act on."""

    code: str
    message: str
    reason: str | None = None


class PersonalPolicy(Protocol):
    """A person's permissions, as the executor asks for them."""

    async def check(
        self,
        actor: Actor,
        capability: str,
        arguments: Mapping[str, Any],
        settings: Settings,
    ) -> Refusal | Settings:
        """Why ``actor`` may not call ``capability`` with ``arguments``; or, when they may,
        the settings their call runs with (their own provider keys, or none).

        Reads only; nothing is counted (the call may still wait for approval).
        """
        ...

    async def spend(self, actor: Actor, capability: str) -> Refusal | None:
        """Count one call against the person's daily budget, atomically; a refusal if spent."""
        ...

    async def ask(
        self,
        actor: Actor,
        token: str,
        capability: str,
        arguments: Mapping[str, Any],
        notices: Sequence[Notice],
        conversation_id: str | None,
        expires_at: float,
    ) -> str:
        """Put a call of ``actor`` in the approvers' queue; returns who it waits for."""
        ...

    async def decision(self, actor: Actor, token: str) -> Decision:
        """What an approver decided about ``actor``'s call waiting under ``token``."""
        ...
