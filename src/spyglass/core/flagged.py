"""The ``flagged`` approval rule: when a call may run without a card, and why one asks.

In Spyglass's own conversations (:data:`OWN_CHANNEL` with a conversation id: the console and
the HTTP conversation API), a capability the owner set to ``flagged`` (``[approvals]``, the
owner's policy, or the person's own mode) runs without a card only when every check passed:
the switches and the person's permissions (the policy stage, before), the privacy check
found nothing, and the capability itself finds nothing unusual about the call
(:attr:`~spyglass.core.capability.Capability.unusual`: for a page read, an address that did
not come from the conversation, one on the owner's network, a hosted reader). Anything else
gets the card, with the reasons it asks.

A conversation grant (:mod:`spyglass.core.grants`) applies the same rule to one capability
for the rest of one conversation, whatever the mode. A person whose calls wait for an owner
or a parent keeps those rules: only a grant their approver gave lets their calls run unasked.
Every other channel (MCP, Open WebUI, the command line) keeps its own rules.

:class:`Unasked` is one of the executor's parts (with ``permission``, ``answers`` and
``expiry``): its confirm stage asks it for the :class:`Verdict` on a call it would otherwise
issue a card for, and front ends record an "Allow for this conversation" through the
executor, which hands it here.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from spyglass.core.actor import Actor
from spyglass.core.attempt import Attempt, warns
from spyglass.core.capability import Capability
from spyglass.core.context import Turn
from spyglass.core.grants import LOCAL_OWNER, GrantStore
from spyglass.core.outcome import CONVERSATION, FLAGGED, UNASKED, Notice
from spyglass.core.policy import APPROVAL_KEYS, PolicySource, approvals_of
from spyglass.core.registry import Registry
from spyglass.errors import StoreUnavailable
from spyglass.settings import Settings

logger = logging.getLogger(__name__)

#: The channel of Spyglass's own conversations (the console and the HTTP conversation API).
OWN_CHANNEL = "console"
__all__ = [
    "CONVERSATION",
    "FLAGGED",
    "OWN_CHANNEL",
    "UNASKED",
    "Unasked",
    "Verdict",
    "applies",
    "household",
    "mode",
    "reasons",
]


@dataclass(frozen=True)
class Verdict:
    """What the rule decided for one call: the rule it runs under without a card, or the
    reasons it asks (empty when the rule did not apply at all: the mode is ``each``)."""

    rule: str | None
    reasons: tuple[str, ...] = ()


def mode(
    capability: Capability,
    settings: Settings,
    switches: PolicySource | None,
    actor: Actor | None,
) -> str:
    """How often ``capability`` asks for ``actor``: their own mode, else the owner's policy,
    else ``[approvals]``; ``each`` for a capability without an approval key."""
    key = capability.approval_key
    if key is None:
        return "each"
    own = actor.approvals.get(key) if actor is not None else None
    if own is not None:
        return own
    chosen = approvals_of(switches).get(key) if switches is not None else None
    if chosen is not None:
        return chosen
    value = getattr(settings.approvals, key, "each")
    return value if isinstance(value, str) else "each"


def household(approvals: Mapping[str, str], settings: Settings) -> dict[str, str]:
    """Every approval key's mode for the household: set at run time (``approvals``, as the
    owner's policy keeps them), else the ``[approvals]`` setting."""
    return {key: approvals.get(key) or getattr(settings.approvals, key) for key in APPROVAL_KEYS}


def reasons(capability: Capability, notices: Sequence[Notice]) -> tuple[str, ...]:
    """Why a call with ``notices`` is unusual: each privacy finding and each warning about
    what an argument hides or imitates, then the capability's own reasons; empty when nothing
    is."""
    found = [f"the {n.argument or 'call'} {n.message}" for n in notices if warns(n)]
    if capability.unusual is not None:
        found += capability.unusual(notices)
    return tuple(dict.fromkeys(found))


def applies(channel: str, conversation_id: str | None) -> bool:
    """Whether the rule can apply at all: only in a conversation Spyglass runs itself."""
    return channel == OWN_CHANNEL and conversation_id is not None


def grantee(actor: Actor | None) -> str:
    """The account a grant is kept under (the local owner's, when nobody signed in)."""
    return LOCAL_OWNER if actor is None else actor.account_id


class Unasked:
    """Decides, for one executor, whether a call runs without a card, and keeps the
    conversation grants that reach that decision."""

    def __init__(
        self,
        registry: Registry,
        settings: Callable[[], Settings],
        grants: GrantStore,
        waits: Callable[[Actor | None], bool],
    ) -> None:
        self.registry = registry
        #: The executor's settings, as they are now.
        self.settings = settings
        #: "Allow for this conversation" grants (see :mod:`spyglass.core.grants`).
        self.grants = grants
        #: Whether someone else (an owner or a parent) approves this person's calls.
        self.waits = waits

    async def verdict(
        self,
        attempt: Attempt,
        capability: Capability,
        turn: Turn,
        notices: Sequence[Notice],
        waits: bool,
    ) -> Verdict:
        """The rule this call runs under without a card, or the reasons it asks."""
        if not applies(attempt.channel, turn.conversation_id):
            return Verdict(None)
        chosen = mode(capability, self.settings(), attempt.switches, attempt.actor)
        # A person whose calls wait keeps those rules whatever is set; only a grant their
        # approver gave reaches them.
        flagged = chosen == FLAGGED and not waits
        if not flagged and capability.approval_key is None:
            return Verdict(None)
        why = reasons(capability, notices)
        if why:
            # The reasons matter only where the rule could have let the call run.
            return Verdict(None, why if flagged or await self._granted(attempt, turn) else ())
        if flagged:
            return Verdict(FLAGGED)
        return Verdict(CONVERSATION) if await self._granted(attempt, turn) else Verdict(None)

    async def allow(
        self,
        conversation_id: str | None,
        capability: str,
        *,
        actor: Actor | None,
        channel: str,
        by_approver: bool,
    ) -> bool:
        """Record an "Allow for this conversation" (see
        :meth:`~spyglass.core.executor.Executor.allow_for_conversation`)."""
        if not applies(channel, conversation_id) or self.registry.get(capability) is None:
            return False
        if self.waits(actor) and not by_approver:
            return False
        assert conversation_id is not None
        try:
            await self.grants.grant(conversation_id, grantee(actor), capability, self._seconds())
        except StoreUnavailable as exc:
            logger.warning("an 'Allow for this conversation' was not recorded: %s", exc.message)
            return False
        return True

    async def _granted(self, attempt: Attempt, turn: Turn) -> bool:
        """Whether a live grant covers this call (and, as it is used, renewed)."""
        assert attempt.capability is not None and turn.conversation_id is not None
        try:
            return await self.grants.use(
                turn.conversation_id,
                grantee(attempt.actor),
                attempt.capability.name,
                self._seconds(),
            )
        except StoreUnavailable as exc:
            # Fail closed: the call asks, as it would without the grant.
            logger.warning("conversation grants cannot be read: %s", exc.message)
            return False

    def _seconds(self) -> float:
        return float(self.settings().approvals.conversation_minutes * 60)
