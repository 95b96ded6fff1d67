"""Turns paused for the owner's approval, keyed by the confirmation token.

The interface is two methods so a shared store (Redis) can replace the in-process one when
several service processes run. Nothing here is ever written to disk.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from spyglass.conversation.citations import Citations
from spyglass.core.confirmation import TOKEN_TTL_SECONDS
from spyglass.core.context import Turn
from spyglass.llm.toolcalls import ToolCall


@dataclass
class TurnState:
    """Everything needed to carry on a turn: transcript, calls still to run, what was shown."""

    conversation_id: str
    turn_id: str
    messages: list[dict[str, Any]]
    turn: Turn
    text: str = ""
    reasoning: str = ""
    events: list[dict[str, Any]] = field(default_factory=list)
    citations: Citations = field(default_factory=Citations)
    #: Raw tool exchanges of this turn, for history (re-wrapped when replayed).
    exchanges: list[dict[str, Any]] = field(default_factory=list)
    #: One receipt entry per call of this turn (``spyglass.privacy.receipts.entry``).
    receipt: list[dict[str, Any]] = field(default_factory=list)
    #: Things the person is told about the turn itself (``{"code", "message"}``).
    notices: list[dict[str, Any]] = field(default_factory=list)
    rounds: int = 0
    queue: list[ToolCall] = field(default_factory=list)
    #: The call waiting for approval: its index in ``events`` and the pending confirmation.
    waiting_event: int | None = None
    waiting: dict[str, Any] | None = None


@dataclass(frozen=True)
class PausedTurn:
    token: str
    state: TurnState
    expires_at: float


#: How long a paused turn is kept after its confirmation expired, so that a late answer
#: still continues the turn (the call recorded as expired) instead of leaving it dead.
RECALL_SECONDS = TOKEN_TTL_SECONDS


class PendingTurnStore(Protocol):
    def put(self, paused: PausedTurn) -> None: ...

    def take(self, token: str, conversation_id: str) -> PausedTurn | None:
        """Remove and return the paused turn, atomically, if it belongs to that conversation
        and its expiry is at most :data:`RECALL_SECONDS` past; ``None`` otherwise (a foreign
        token is left in place). The caller lets the executor refuse an expired token."""
        ...


class InMemoryPendingTurnStore:
    """The embedded default: a dict under a lock, pruned of expired turns as it goes."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._items: dict[str, PausedTurn] = {}
        self._lock = threading.Lock()

    def put(self, paused: PausedTurn) -> None:
        with self._lock:
            cutoff = self._clock() - RECALL_SECONDS
            for token in [t for t, p in self._items.items() if p.expires_at < cutoff]:
                del self._items[token]
            self._items[paused.token] = paused

    def take(self, token: str, conversation_id: str) -> PausedTurn | None:
        with self._lock:
            paused = self._items.get(token)
            if paused is None or paused.state.conversation_id != conversation_id:
                return None
            del self._items[token]
            if paused.expires_at < self._clock() - RECALL_SECONDS:
                return None
            return paused

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)


def expiry(clock: Callable[[], float]) -> float:
    return clock() + TOKEN_TTL_SECONDS
