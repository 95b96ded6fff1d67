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
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from spyglass.core.actor import Actor
from spyglass.core.attempt import FINDING_PREFIX
from spyglass.core.capability import Capability
from spyglass.core.outcome import CONVERSATION, FLAGGED, UNASKED, Notice
from spyglass.core.policy import APPROVAL_KEYS, PolicySource, approvals_of
from spyglass.settings import Settings

#: The channel of Spyglass's own conversations (the console and the HTTP conversation API).
OWN_CHANNEL = "console"
__all__ = [
    "CONVERSATION",
    "FLAGGED",
    "OWN_CHANNEL",
    "UNASKED",
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
    """Why a call with ``notices`` is unusual: each privacy finding, then the capability's
    own reasons; empty when nothing is."""
    found = [
        f"the {n.argument or 'call'} {n.message}"
        for n in notices
        if n.kind.startswith(FINDING_PREFIX)
    ]
    if capability.unusual is not None:
        found += capability.unusual(notices)
    return tuple(dict.fromkeys(found))


def applies(channel: str, conversation_id: str | None) -> bool:
    """Whether the rule can apply at all: only in a conversation Spyglass runs itself."""
    return channel == OWN_CHANNEL and conversation_id is not None
