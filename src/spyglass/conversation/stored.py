"""A paused turn as the stores that outlive the process keep it: a declared, versioned form.

:class:`StoredTurnState` is the part of a :class:`~spyglass.conversation.pending.TurnState`
that carries the turn on in another process or after a restart (``schema`` 2), written and
read by :data:`TURN_STATE` (:mod:`spyglass.core.records`). Left out, as they only mean
something in the process that holds the turn: the turn's in-memory cache (pages ``web.fetch``
read are in the page cache, :mod:`spyglass.state.pages`, where a resumed turn finds them),
writes still under way, a token taken and not used yet, and whether history holds the turn.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from spyglass.conversation.cards import seal, unseal
from spyglass.conversation.citations import Citations
from spyglass.conversation.pending import TurnState, WaitingCard
from spyglass.core.confirmation import token_digest
from spyglass.core.context import Turn
from spyglass.core.records import RecordCodec
from spyglass.llm.toolcalls import ToolCall
from spyglass.privacy.provenance import Source


@dataclass
class StoredTurn:
    """What a turn carries across a pause: its counts and the privacy check's inputs."""

    conversation_id: str | None
    id: str
    counts: dict[str, int]
    private_texts: tuple[str, ...] = ()
    sources: list[Source] = field(default_factory=list)


@dataclass
class StoredCard:
    """A :class:`WaitingCard` with its token sealed under the token the turn is kept by."""

    event: int
    digest: str
    card: dict[str, Any]
    expires_at: float
    #: Hex; ``""`` for the card the turn is kept by (its answer presents the token).
    sealed: str = ""


@dataclass
class StoredTurnState:
    """Every field of :class:`TurnState` of the same name, except ``turn``, ``citations``
    and ``waiting`` (kept in their stored forms)."""

    conversation_id: str
    turn_id: str
    messages: list[dict[str, Any]]
    turn: StoredTurn
    text: str
    reasoning: str
    events: list[dict[str, Any]]
    #: ``{url, title}`` in order (:meth:`Citations.to_list`).
    citations: list[dict[str, Any]]
    exchanges: list[dict[str, Any]]
    rounds: int
    queue: list[ToolCall]
    #: Since version 3: every card the round waits for (before, one, with its raw token).
    waiting: list[StoredCard]
    #: Turns paused before receipts were kept have none.
    receipt: list[dict[str, Any]] = field(default_factory=list)
    #: Turns paused before notices were kept lost theirs.
    notices: list[dict[str, Any]] = field(default_factory=list)
    #: Since version 2: the approved call recorded as started and not yet answered.
    started: dict[str, Any] | None = None
    #: Since version 3: the cards answered since the pause, by digest.
    answered: list[str] = field(default_factory=list)


def _with_started(data: dict[str, Any]) -> dict[str, Any]:
    """Version 1 → 2: a turn paused before starts were recorded had none under way."""
    return {**data, "started": None}


def _cards_by_digest(data: dict[str, Any]) -> dict[str, Any]:
    """Version 2 → 3: the one waiting card becomes a list of cards kept by digest; the raw
    token (and the claim's) is dropped: the turn is kept by that very token."""
    data = dict(data)
    data.pop("claim", None)
    event = data.pop("waiting_event", None)
    waiting = data.pop("waiting", None)
    cards = []
    if isinstance(waiting, dict) and event is not None:
        card = dict(waiting)
        digest = token_digest(str(card.pop("token", "")))
        cards.append({"event": event, "digest": digest, "card": card, "expires_at": 0.0})
        if isinstance(data.get("started"), dict):
            data["started"] = {**data["started"], "digest": digest}
    return {**data, "waiting": cards, "answered": []}


TURN_STATE = RecordCodec(
    StoredTurnState, version=3, upgrades={1: _with_started, 2: _cards_by_digest}
)

_SAME = [
    f.name
    for f in dataclasses.fields(StoredTurnState)
    if f.name not in ("turn", "citations", "waiting")
]


def state_to_json(state: TurnState, key: str | None = None) -> str:
    """The turn as the JSON a store keeps under the token ``key``: every waiting card's
    token sealed under it (none where no key is given)."""
    turn = state.turn
    cards = []
    for card in state.waiting:
        token = state.tokens.get(card.digest)
        sealed = ""
        if key is not None and token is not None and token != key:
            sealed = seal(key, token, card.digest)
        cards.append(StoredCard(card.event, card.digest, card.card, card.expires_at, sealed))
    stored = StoredTurnState(
        **{name: getattr(state, name) for name in _SAME},
        waiting=cards,
        turn=StoredTurn(
            turn.conversation_id,
            turn.id,
            dict(turn.counts),
            tuple(turn.private_texts),
            list(turn.sources),
        ),
        citations=state.citations.to_list(),
    )
    return TURN_STATE.dumps(stored)


def state_from_json(text: str | bytes, key: str | None = None) -> TurnState:
    """The turn a store kept under the token ``key``, in any version this Spyglass knows:
    the waiting cards' tokens unsealed with it (a card whose token cannot be has none)."""
    stored = TURN_STATE.loads(text)
    turn = stored.turn
    tokens = {}
    for card in stored.waiting:
        token = None if key is None else unseal(key, card.sealed, card.digest)
        if token is not None:
            tokens[card.digest] = token
    return TurnState(
        **{name: getattr(stored, name) for name in _SAME},
        waiting=[WaitingCard(c.event, c.digest, c.card, c.expires_at) for c in stored.waiting],
        tokens=tokens,
        turn=Turn(
            conversation_id=turn.conversation_id,
            id=turn.id,
            counts=Counter(turn.counts),
            private_texts=turn.private_texts,
            sources=list(turn.sources),
        ),
        citations=Citations(stored.citations),
    )
