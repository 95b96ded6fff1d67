"""A round of calls: run each that needs no card (shown live), give each that needs asking
its own card, keep the turn once, and answer the cards one by one or all at once.

:class:`RoundRunner` is the part of :class:`~spyglass.conversation.turn.ConversationRunner`
that deals with a round's cards: issuing them together (one card per round), pausing the
turn under the first still-waiting card's token, answering the cards a reply names in round
order (a card that expired unanswered counts as declined), pausing again while some still
wait, and carrying a turn on after a crash without sending a started call twice.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from spyglass.conversation.cards import shown, token_of, wait
from spyglass.conversation.keeping import TurnKeeper
from spyglass.conversation.pending import PausedTurn, TurnState, WaitingCard, expiry
from spyglass.core.actor import Actor
from spyglass.core.confirmation import ConfirmationReply, PendingRecord, Taken, token_digest
from spyglass.core.encoding import printable
from spyglass.core.executor import Executor
from spyglass.core.outcome import Code, ErrorInfo, Outcome
from spyglass.core.parked import Keep, Parked
from spyglass.errors import StoreUnavailable
from spyglass.llm.toolcalls import ToolCall

logger = logging.getLogger(__name__)

Event = tuple[str, dict[str, Any]]

#: Why a card whose token was lost with a crashed process fails (it cannot be answered).
LOST = (
    "the process holding this turn stopped before its card was shown, so it cannot be "
    "answered and the call did not run; ask again"
)


class RoundRunner(TurnKeeper):
    """Runs a round's calls and answers its cards (see the module docstring)."""

    executor: Executor
    channel: str

    def _joined(self) -> bool:
        raise NotImplementedError

    def _capability_name(self, call: ToolCall) -> str:
        raise NotImplementedError

    async def _record(
        self, state: TurnState, call: ToolCall, outcome: Outcome, replace: int | None = None
    ) -> dict[str, Any]:
        raise NotImplementedError

    async def _answer(
        self, state: TurnState, answer: ConfirmationReply, actor: Actor | None = None
    ) -> dict[str, Any]:
        raise NotImplementedError

    async def _round(self, state: TurnState, actor: Actor | None) -> AsyncIterator[Event]:
        """Run the round's calls in order: each that needs no card runs (shown live), each
        that needs asking gets its own card; then the turn is kept once, under the first
        card's token, if any call waits."""
        joined = self._joined()
        # With a joined store the first card's record is kept with the turn, in one step;
        # the later cards are issued as the executor issues any (they need no turn beside).
        first: list[PendingRecord] = []
        index = len(state.waiting)
        while index < len(state.queue):
            call = state.queue[index]
            name = self._capability_name(call)
            yield "tool_start", {"capability": name, "arguments": _shown(call)}
            waiting = len(state.waiting)
            keep = joined and not state.waiting and not first
            outcome = await self.executor.ainvoke(
                name,
                None,
                call.arguments,
                channel=self.channel,
                turn=state.turn,
                recovered=call.recovered,
                actor=actor,
                parked=Parked(keep=self._keeper(state, call, first)) if keep else None,
            )
            if outcome.pending_confirmation is not None:
                if len(state.waiting) == waiting:
                    wait(state, call.arguments, outcome, expiry(self.executor.clock))
                index += 1
                yield "tool_end", state.events[state.waiting[-1].event]
                continue
            yield "tool_end", await self._record(state, call, outcome)
        async for event in self._keep_waiting(state, first[0] if first else None):
            yield event

    async def _pending(self, state: TurnState) -> AsyncIterator[Event]:
        """The cards the turn waits for: the first alone for existing clients, then all."""
        cards = shown(state, self.executor.clock())
        if cards:
            yield "pending_confirmation", cards[0]
        yield "pending_confirmations", {"pending_confirmations": cards}

    def _keeper(self, state: TurnState, call: ToolCall, first: list[PendingRecord]) -> Keep:
        """Takes the first card of a round from the executor, to keep with the turn once the
        round has ended (:meth:`_round`), in one store step."""

        async def keep(record: PendingRecord, outcome: Outcome) -> None:
            wait(state, call.arguments, outcome, record.expires_at)
            first.append(record)

        return keep

    async def _answers(
        self, state: TurnState, answers: list[ConfirmationReply], actor: Actor | None
    ) -> AsyncIterator[Event]:
        """Answer the round's cards the person answered, in round order; a card that expired
        unanswered counts as declined."""
        by_digest = {token_digest(a.token): a for a in answers}
        now = self.executor.clock()
        for card in list(state.waiting):
            reply = by_digest.get(card.digest)
            if state.started is not None and state.started.get("digest") == card.digest:
                # (A turn carried on after a crash: this call may have been sent.)
                yield "tool_end", await self._interrupted(state, card, actor)
                continue
            if reply is None:
                token = token_of(state, card)
                if card.expires_at >= now or token is None:
                    continue
                reply = ConfirmationReply(token, False)
            yield "tool_end", await self._answer(state, reply, actor)

    def _answered(
        self, state: TurnState, card: WaitingCard, call: ToolCall, event: dict[str, Any]
    ) -> dict[str, Any]:
        """Forget a card once its call's outcome is recorded (``_record`` took the call)."""
        state.waiting.remove(card)
        state.tokens.pop(card.digest, None)
        state.answered.append(card.digest)
        state.started = None
        return event

    async def _keep_waiting(
        self, state: TurnState, record: PendingRecord | None = None
    ) -> AsyncIterator[Event]:
        """Keep the turn paused under the first card still waiting, once (with ``record``,
        that card's, where the store keeps both in one step; without, its record is in the
        store already). A card that cannot wait fails, closed, and the turn goes on: one
        whose token was lost with a process, or all of them when the turn cannot be kept."""
        lost = [c for c in state.waiting if token_of(state, c) is None]
        for card in lost:
            yield "tool_end", await self._fail(state, card, LOST)
        if not state.waiting:
            return
        key = state.waiting[0]
        token = token_of(state, key)
        assert token is not None
        state.answered = []
        try:
            await self._pause(PausedTurn(token, state, key.expires_at), record)
        except StoreUnavailable as exc:
            logger.warning("could not keep the paused turn: %s", exc.message)
            message = (
                f"the {exc.store} state store cannot be reached, so this call cannot wait "
                "for its approval and did not run; try again once it is back "
                "(GET /api/v1/health shows its state)"
            )
            for card in list(state.waiting):
                yield "tool_end", await self._fail(state, card, message)

    async def _fail(self, state: TurnState, card: WaitingCard, message: str) -> dict[str, Any]:
        """Record the call waiting for ``card`` as failed without running (``message`` says
        why), and forget the card."""
        call = state.queue[state.waiting.index(card)]
        outcome = Outcome(
            status="failed",
            capability=str(card.card.get("capability", "")),
            version=card.card.get("version"),
            invocation_id=uuid.uuid4().hex,
            stage="confirm",
            error=ErrorInfo(Code.STORE_UNAVAILABLE, message, retryable=True),
        )
        event = await self._record(state, call, outcome, replace=card.event)
        state.waiting.remove(card)
        state.tokens.pop(card.digest, None)
        return event

    async def _pause_again(
        self,
        state: TurnState,
        token: str,
        taken: Taken | None,
        until: float | None = None,
    ) -> None:
        """Keep the claimed turn paused again under ``token``, with the approval it was
        claimed with (taken or not by the answer: its call did not run), in one store step:
        the token is never put back without its turn. Should that step fail too, the turn
        stays claimed with its approval where the store keeps it with the turn (Redis, the
        state file): the same approval carries it on once the lease has lapsed."""
        state.started = None
        record = taken.record if taken is not None else None
        if until is None:
            until = record.expires_at if record is not None else state.paused_until
        if until is None:
            until = expiry(self.executor.clock)
        try:
            await self.pending.put(PausedTurn(token, state, until), record)
        except StoreUnavailable as exc:
            logger.warning("could not pause the turn again: %s", exc.message)

    def _starter(self, state: TurnState, card: WaitingCard) -> Callable[[str], Awaitable[None]]:
        """Records in the paused-turn store that the approved call is about to leave; raises
        (and the call does not leave) when that cannot be recorded."""
        claim = state.claim
        assert claim is not None

        async def started(invocation_id: str) -> None:
            state.started = {"invocation_id": invocation_id, "digest": card.digest}
            try:
                await self.pending.checkpoint(claim, state)
            except BaseException:
                state.started = None
                raise

        return started

    async def _interrupted(
        self, state: TurnState, card: WaitingCard, actor: Actor | None = None
    ) -> dict[str, Any]:
        """The approved call the crashed process had started: it may have been sent, so it
        is recorded as such (receipt, history, audit) and never sent again."""
        waiting = card.card
        started = state.started or {}
        call = state.queue[state.waiting.index(card)]
        outcome = await self.executor.interrupted(
            waiting["capability"],
            waiting.get("version"),
            str(started.get("invocation_id", "")),
            channel=self.channel,
            actor=actor,
        )
        if state.taken is not None and state.tokens.get(card.digest) == state.claim:
            # (Never there: the crashed process took the approval.)
            taken, state.taken = state.taken, None
            await self.executor.give_back(taken)
        event = await self._record(state, call, outcome, replace=card.event)
        return self._answered(state, card, call, event)


def _shown(call: ToolCall) -> dict[str, Any]:
    shown: dict[str, Any] = printable(call.arguments) if isinstance(call.arguments, dict) else {}
    return shown
