"""Where a turn is kept while it runs and after: history, the paused-turn store and the
record of where its URLs came from.

A store that fails here never breaks the answer: history is a record, a checkpoint only
serves carrying the turn on after a crash, and the URLs' sources only serve later turns. So
each failure is logged and the turn goes on; only keeping a paused turn raises, because a
turn that cannot be kept cannot wait for its approval.
"""

from __future__ import annotations

import asyncio
import logging

from spyglass.conversation.pending import PausedTurn, PendingTurnStore, TurnState
from spyglass.core.confirmation import PendingRecord
from spyglass.errors import StoreUnavailable
from spyglass.history.store import HistoryStore
from spyglass.privacy import receipts
from spyglass.privacy.provenance import ProvenanceStore, Source

logger = logging.getLogger(__name__)


class TurnKeeper:
    """The store side of :class:`spyglass.conversation.turn.ConversationRunner`."""

    history: HistoryStore
    pending: PendingTurnStore
    provenance: ProvenanceStore

    async def _pause(self, paused: PausedTurn, record: PendingRecord | None = None) -> None:
        """Keep the paused turn (with its token, given ``record``) and, side by side, save
        it to history: a turn that pauses changes no more, and the two are different
        stores. Raises what keeping the paused turn raised."""
        state = paused.state
        kept, saved = await asyncio.gather(
            self.pending.put(paused, record), self._saved(state), return_exceptions=True
        )
        if isinstance(kept, BaseException):
            raise kept
        state.saved = saved is True

    async def _keep_sources(self, conversation_id: str, found: list[Source]) -> None:
        try:
            await self.provenance.add(conversation_id, found)
        except StoreUnavailable as exc:
            # This turn still knows them; only later turns would not.
            logger.warning("could not keep where the URLs came from: %s", exc.message)

    async def _saved(self, state: TurnState) -> bool:
        """Wait for the turn's source writes (one that failed is logged, not raised), then
        save the turn; whether it was saved. One coroutine, so that a single shield carries
        both through a cancellation."""
        writes, state.source_writes = state.source_writes, []
        for write in writes:
            try:
                await write
            except Exception:
                logger.exception("could not keep where the URLs came from")
        return await self._save(state)

    async def _checkpoint(self, claim: str, state: TurnState) -> None:
        try:
            await self.pending.checkpoint(claim, state)
        except StoreUnavailable as exc:
            # The turn goes on; only carrying it on after a crash of this process is lost.
            logger.warning("could not checkpoint the turn: %s", exc.message)

    async def _finish(self, claim: str) -> None:
        try:
            await self.pending.finish(claim)
        except StoreUnavailable as exc:
            # Its lease lapses on its own; a late approval finds the turn already answered.
            logger.warning("could not release the finished turn: %s", exc.message)

    async def _save(self, state: TurnState) -> bool:
        try:
            await self.history.save_assistant(
                state.conversation_id,
                state.turn_id,
                text=state.text,
                reasoning=state.reasoning,
                events=state.events,
                citations=state.citations.for_answer(state.text),
                exchanges=state.exchanges,
                receipt=receipts.build(state.receipt),
            )
        except Exception:
            # History is a record, not the answer: a full disk must not break the reply.
            logger.exception("could not save the turn to history")
            return False
        return True
