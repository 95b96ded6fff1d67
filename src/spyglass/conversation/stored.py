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

from spyglass.conversation.citations import Citations
from spyglass.conversation.pending import TurnState
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
class StoredTurnState:
    """Every field of :class:`TurnState` of the same name, except ``turn`` and ``citations``
    (kept in their stored forms)."""

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
    waiting_event: int | None
    waiting: dict[str, Any] | None
    #: Turns paused before receipts were kept have none.
    receipt: list[dict[str, Any]] = field(default_factory=list)
    #: Turns paused before notices were kept lost theirs.
    notices: list[dict[str, Any]] = field(default_factory=list)
    claim: str | None = None
    #: Since version 2: the approved call recorded as started and not yet answered.
    started: dict[str, Any] | None = None


def _with_started(data: dict[str, Any]) -> dict[str, Any]:
    """Version 1 → 2: a turn paused before starts were recorded had none under way."""
    return {**data, "started": None}


TURN_STATE = RecordCodec(StoredTurnState, version=2, upgrades={1: _with_started})

_SAME = [f.name for f in dataclasses.fields(StoredTurnState) if f.name not in ("turn", "citations")]


def state_to_json(state: TurnState) -> str:
    """The turn as the JSON a store keeps."""
    turn = state.turn
    stored = StoredTurnState(
        **{name: getattr(state, name) for name in _SAME},
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


def state_from_json(text: str | bytes) -> TurnState:
    """The turn a store kept, in any version this Spyglass knows."""
    stored = TURN_STATE.loads(text)
    turn = stored.turn
    return TurnState(
        **{name: getattr(stored, name) for name in _SAME},
        turn=Turn(
            conversation_id=turn.conversation_id,
            id=turn.id,
            counts=Counter(turn.counts),
            private_texts=turn.private_texts,
            sources=list(turn.sources),
        ),
        citations=Citations(stored.citations),
    )
