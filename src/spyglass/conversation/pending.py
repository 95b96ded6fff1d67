"""Turns paused for the owner's approval, keyed by the confirmation token.

A paused turn is *claimed* by the process its approval reaches (:meth:`PendingTurnStore.take`)
and held under a lease while it runs: checkpoints record its progress, ``finish`` removes it.
If that process dies, another one may claim the turn once the lease has lapsed and carries on
from the last checkpoint; the approval token is single use, so a call already run is never run
twice. The in-process store needs none of that and simply hands the turn over.

A store that keeps the confirmation tokens as well (:meth:`PendingTurnStore.shares`: the
same state file, the same Redis) writes a paused turn and its token in one step, and claims a
turn and takes its token in one step: one store trip each instead of two.

``expires_at`` is wall-clock time so it means the same in every process and after a restart.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from spyglass.conversation.citations import Citations
from spyglass.core.confirmation import (
    TOKEN_TTL_SECONDS,
    ConfirmationStore,
    PendingRecord,
    Taken,
)
from spyglass.core.context import Turn
from spyglass.errors import SpyglassError
from spyglass.llm.toolcalls import ToolCall

#: How long a claim lasts without renewal unless the store is told otherwise.
DEFAULT_LEASE_SECONDS = 30.0


@dataclass
class WaitingCard:
    """One card a paused round waits for; its token is kept apart (``TurnState.tokens``)."""

    #: Where the call's event is in ``TurnState.events`` (replaced by its outcome's).
    event: int
    #: The token's SHA-256 (:func:`~spyglass.core.confirmation.token_digest`).
    digest: str
    #: The pending confirmation as the person was shown it, without its token.
    card: dict[str, Any]
    #: Wall-clock time the card expires at; a card nobody answered by then is declined.
    expires_at: float


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
    #: The calls of the round not finished yet: first those waiting for an answer (the
    #: call ``queue[i]`` waits for the card ``waiting[i]``), then those not run yet.
    queue: list[ToolCall] = field(default_factory=list)
    #: The cards the round's calls wait for, in round order (one card per round: every
    #: call that needs asking is asked at once, and the turn goes on once all are answered).
    waiting: list[WaitingCard] = field(default_factory=list)
    #: Digests of the cards answered since the turn was paused: an answer sent again to a
    #: turn carried on after a crash names them, and they are not answered twice.
    answered: list[str] = field(default_factory=list)
    #: The waiting cards' tokens by digest. Stored only sealed under the token the turn is
    #: kept (or claimed) by (:mod:`spyglass.conversation.cards`): a copy of a store holds
    #: nothing that approves a call.
    tokens: dict[str, str] = field(default_factory=dict, compare=False, repr=False)
    #: The token this turn was claimed by, while a process holds it under a lease (never
    #: stored: whoever carries the turn on presents it).
    claim: str | None = field(default=None, compare=False, repr=False)
    #: The approved call about to leave or under way (``{"invocation_id", "digest"}``: the
    #: digest names its card), recorded before it leaves and cleared with its result: a turn
    #: carried on after a crash that finds it says the call may have been sent, and does not
    #: send it again.
    started: dict[str, Any] | None = None
    #: Writes of where this turn's URLs came from, still under way in this process (never
    #: stored: the sources themselves are in ``turn``).
    source_writes: list[asyncio.Task[None]] = field(default_factory=list, compare=False, repr=False)
    #: The answer's token, taken with the claim on this turn and not used yet (never stored).
    taken: Taken | None = field(default=None, compare=False, repr=False)
    #: When the card this turn was claimed by expires (set by the claim; never stored).
    paused_until: float | None = field(default=None, compare=False, repr=False)
    #: Whether history holds the turn as it is now (saved beside its pause; never stored).
    saved: bool = field(default=False, compare=False, repr=False)


@dataclass(frozen=True)
class PausedTurn:
    token: str
    state: TurnState
    expires_at: float
    #: The token's record, when the claim took it as well (``take(..., with_token=True)``).
    taken: Taken | None = field(default=None, compare=False)


#: How long a paused turn is kept after its confirmation expired, so that a late answer
#: still continues the turn (the call recorded as expired) instead of leaving it dead.
RECALL_SECONDS = TOKEN_TTL_SECONDS


class TurnBusy(SpyglassError):
    """Another process holds this turn's lease; the approval may be sent again later."""

    def __init__(self, retry_after: float) -> None:
        super().__init__(f"resumed elsewhere; retry in {retry_after:.0f} s")
        self.retry_after = retry_after


class PendingTurnStore(Protocol):
    def shares(self, confirmations: ConfirmationStore) -> bool:
        """Whether this store can keep and take ``confirmations``' tokens in its own steps
        (``put(..., record)``, ``take(..., with_token=True)``)."""
        ...

    def checks_holders(self, accounts: object) -> bool:
        """Whether :meth:`take` can check whose conversation it is, as ``accounts`` (the
        household's accounts store) records it, in its own step (``holder=``)."""
        ...

    async def put(self, paused: PausedTurn, record: PendingRecord | None = None) -> None:
        """Keep the paused turn; with ``record`` (only where :meth:`shares` says so), keep its
        confirmation in the same step, so that neither is kept without the other."""
        ...

    async def take(
        self,
        token: str,
        conversation_id: str,
        *,
        with_token: bool = False,
        holder: str | None = None,
    ) -> PausedTurn | None:
        """Claim the paused turn if it belongs to that conversation and its expiry is at most
        :data:`RECALL_SECONDS` past (the caller lets the executor refuse an expired token).

        ``None`` if unknown, foreign (left in place for its owner), long expired or finished.
        Raises :class:`TurnBusy` while another live process holds it. ``with_token`` (only
        where :meth:`shares` says so): a claim also takes the token's record, atomically
        with it, into ``PausedTurn.taken``; a turn not claimed leaves its token alone.
        ``holder`` (only where :meth:`checks_holders` says so): a conversation that is not
        that account's is answered as a foreign one, in the same step.
        """
        ...

    async def checkpoint(self, token: str, state: TurnState) -> None:
        """Save the progress of a claimed turn and renew its lease."""
        ...

    async def finish(self, token: str) -> None:
        """The claimed turn ended (or paused again under a new token): forget it."""
        ...


class InMemoryPendingTurnStore:
    """The in-process store: a dict under a lock, pruned of expired turns as it goes.

    A claim removes the turn at once, so checkpoints and ``finish`` have nothing to do.
    """

    def __init__(
        self,
        clock: Callable[[], float] = time.time,
        confirmations: ConfirmationStore | None = None,
    ) -> None:
        self._clock = clock
        self._items: dict[str, PausedTurn] = {}
        self._lock = threading.Lock()
        #: The in-process token store kept and taken beside the turns, if any.
        self.confirmations = confirmations

    def shares(self, confirmations: ConfirmationStore) -> bool:
        return confirmations is self.confirmations

    def checks_holders(self, accounts: object) -> bool:
        return False

    async def put(self, paused: PausedTurn, record: PendingRecord | None = None) -> None:
        if record is not None:
            assert self.confirmations is not None, "put a record only where shares() says so"
            # Both in-process: nothing runs between the two but this coroutine.
            await self.confirmations.put(record)
        with self._lock:
            cutoff = self._clock() - RECALL_SECONDS
            for token in [t for t, p in self._items.items() if p.expires_at < cutoff]:
                del self._items[token]
            self._items[paused.token] = paused

    async def take(
        self,
        token: str,
        conversation_id: str,
        *,
        with_token: bool = False,
        holder: str | None = None,
    ) -> PausedTurn | None:
        assert holder is None, "check the holder only where checks_holders() says so"
        with self._lock:
            paused = self._items.get(token)
            if paused is None or paused.state.conversation_id != conversation_id:
                return None
            del self._items[token]
            if paused.expires_at < self._clock() - RECALL_SECONDS:
                return None
        if not with_token:
            return paused
        assert self.confirmations is not None, "take the token only where shares() says so"
        taken = Taken(await self.confirmations.take(token))
        return PausedTurn(paused.token, paused.state, paused.expires_at, taken)

    async def checkpoint(self, token: str, state: TurnState) -> None:
        return None

    async def finish(self, token: str) -> None:
        return None

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)


def expiry(clock: Callable[[], float]) -> float:
    return clock() + TOKEN_TTL_SECONDS


@contextlib.asynccontextmanager
async def held(store: PendingTurnStore, state: TurnState, lease: float) -> AsyncIterator[None]:
    """While the body runs, renew the claim on ``state`` every third of its lease.

    Does nothing for a turn that was not claimed (a new turn, or an in-process store).
    """
    token = state.claim
    if token is None:
        yield
        return

    async def renew() -> None:
        while True:
            await asyncio.sleep(lease / 3)
            with contextlib.suppress(Exception):
                await store.checkpoint(token, state)

    task = asyncio.create_task(renew())
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
