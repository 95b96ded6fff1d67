"""One conversation turn: stream → run proposed calls → append results → repeat.

A turn is an async generator of ``(event, data)`` pairs — the HTTP layer sends them as
Server-Sent Events or collects them into one JSON answer. The turn always ends with
``done`` carrying the whole response; if the client goes away the generator is closed and
what was produced so far is still saved.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import AsyncGenerator, Awaitable, Callable, Sequence
from typing import Any

from spyglass.conversation.asking import EMPTY_ANSWER, ModelAnswer, ask, nothing_left, notice
from spyglass.conversation.cards import find, shown
from spyglass.conversation.events import tool_event
from spyglass.conversation.pending import (
    PausedTurn,
    PendingTurnStore,
    TurnBusy,
    TurnState,
    held,
)
from spyglass.conversation.reply import response
from spyglass.conversation.rounds import RoundRunner
from spyglass.conversation.stopping import STOPPED, STOPPED_MESSAGE, TurnStops
from spyglass.conversation.transcript import is_untrusted, replay, tool_message, tool_payload
from spyglass.core.actor import Actor
from spyglass.core.capability import Capability
from spyglass.core.confirmation import ConfirmationReply, Taken, token_digest
from spyglass.core.context import Turn
from spyglass.core.executor import Executor
from spyglass.core.outcome import Code, Outcome
from spyglass.core.parked import Parked
from spyglass.core.policy import PolicySource, capability_allowed, read_snapshot
from spyglass.errors import RequestRefused, SpyglassError
from spyglass.history.store import HistoryStore
from spyglass.llm.client import ModelClient, ModelUnavailable
from spyglass.llm.prompt import system_prompt
from spyglass.llm.toolcalls import ToolCall
from spyglass.privacy import receipts
from spyglass.privacy.provenance import (
    InMemoryProvenanceStore,
    ProvenanceStore,
    observed,
)

logger = logging.getLogger(__name__)

Event = tuple[str, dict[str, Any]]

#: Calls beyond this many in one model response are dropped: no model needs more at once.
MAX_CALLS_PER_ROUND = 8
TITLE_CHARS = 80

TURN_FAILED = "Spyglass hit an unexpected error in this turn; the details are in its log"


class TurnRefused(RequestRefused):
    """The request cannot start or resume a turn; ``code`` and ``status`` go to HTTP."""


class AnswerDeferred(SpyglassError):
    """A store was unavailable before the approved call ran: nothing left the device, and
    the turn is paused again with its token, so the same approval can be sent again."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


#: The error event (and the HTTP answer) of an approval a store's outage deferred.
DEFERRED = "STORE_UNAVAILABLE"


class ConversationRunner(RoundRunner):
    """Runs turns for one channel (``console`` for the console and the HTTP API).

    It is given what it uses: the executor that runs the calls (with the settings, the
    registry and the clock it holds), the owner's switches, the model, and the stores that
    keep the conversation, its paused turns and its sources.
    """

    def __init__(
        self,
        executor: Executor,
        model: ModelClient,
        history: HistoryStore,
        pending: PendingTurnStore,
        *,
        policy: PolicySource,
        channel: str = "console",
        provenance: ProvenanceStore | None = None,
    ) -> None:
        self.executor = executor
        self.policy = policy
        self.settings = executor.settings
        self.registry = executor.registry
        self.model = model
        self.history = history
        self.pending = pending
        self.channel = channel
        self.provenance = provenance or InMemoryProvenanceStore()
        #: The turns running in this process, so that :meth:`stop` can end one.
        self.stops = TurnStops()

    # -- what the model may use -----------------------------------------------------------

    async def offered(self, actor: Actor | None = None) -> list[Capability]:
        """Capabilities whose owner switch is on (web access off → no web tools at all) and,
        for a person, that they may use."""
        switches = await read_snapshot(self.policy)
        settings = self.settings
        return [
            c for c in self.registry.latest() if capability_allowed(switches, c, settings, actor)
        ]

    def _joined(self) -> bool:
        """Whether the paused turns and the executor's tokens are kept in one store, so that
        a turn and its token are written, and claimed and taken, in one step each."""
        return self.pending.shares(self.executor.confirmations)

    async def _tools(self, actor: Actor | None = None) -> list[Capability]:
        """What the model is offered now: nothing while its server refuses it tools."""
        return [] if self.model.tools_refused() else await self.offered(actor)

    # -- starting and resuming ------------------------------------------------------------

    async def start(
        self,
        conversation_id: str | None,
        text: str,
        actor: Actor | None = None,
        *,
        claim: Callable[[str], Awaitable[object]] | None = None,
        may_continue: Callable[[str], Awaitable[bool]] | None = None,
    ) -> TurnState:
        """A new turn on a new or existing conversation. Raises :class:`TurnRefused`.

        ``claim(conversation_id)``, when given, records whose conversation it is: for a new
        conversation before the person's message is written (both are kept or neither), for
        one they continue side by side with that write (each is a trip to a store).
        ``may_continue(conversation_id)``, when given, says whether the caller may continue
        an existing conversation; it is asked side by side with reading the conversation,
        and one they may not continue is answered as an unknown one, before anything is
        written.
        """
        # Any request is a chance to audit confirmations that expired unanswered.
        await self.executor.sweep_due()
        stored: list[dict[str, Any]] = []
        sources: list[Any] = []
        if conversation_id is not None:
            # Independent reads, side by side: each store call is a trip to a worker thread
            # or a server, and a turn's latency is their sum when made one after another.
            reads = await asyncio.gather(
                self.history.messages(conversation_id),
                self.provenance.sources(conversation_id),
                may_continue(conversation_id) if may_continue is not None else _yes(),
            )
            stored, sources, allowed = reads
            known = allowed and (bool(stored) or await self.history.exists(conversation_id))
            # (With history off nothing is known, and any id the caller may use is fine.)
            if not allowed or (not known and self.history.enabled):
                raise TurnRefused(
                    "NOT_FOUND",
                    f"no conversation with id {conversation_id[:64]!r}; leave out "
                    "conversation_id to start a new one",
                    404,
                )
        conversation_id = conversation_id or uuid.uuid4().hex
        turn_id = uuid.uuid4().hex
        earlier = replay(stored)
        prompt = system_prompt(await self._tools(actor), self.settings.llm.system_prompt)
        messages = [{"role": "system", "content": prompt}, *earlier]
        messages.append({"role": "user", "content": text})
        stored_text = self.history.add_user(
            conversation_id, turn_id, text, title=text[:TITLE_CHARS]
        )
        if claim is None:
            await stored_text
        elif not stored:
            # A new conversation is claimed before anything of it is written: a message
            # kept while its claim failed would be nobody's, and a retry would write it again.
            # (A claim whose message then fails names a conversation that does not exist.)
            try:
                await claim(conversation_id)
            except BaseException:
                stored_text.close()
                raise
            await stored_text
        else:
            # An existing conversation is the caller's already (may_continue said so): the
            # claim changes nothing, and goes side by side with the write.
            results = await asyncio.gather(
                stored_text, claim(conversation_id), return_exceptions=True
            )
            for result in results:
                if isinstance(result, BaseException):
                    raise result
        return TurnState(
            conversation_id=conversation_id,
            turn_id=turn_id,
            messages=messages,
            turn=Turn(
                conversation_id=conversation_id,
                id=turn_id,
                private_texts=(*(m["text"] for m in stored if m["role"] == "user"), text),
                sources=sources,
            ),
        )

    async def resume(
        self,
        conversation_id: str,
        token: str | Sequence[str],
        actor: Actor | None = None,
        *,
        holder: str | None = None,
    ) -> TurnState:
        """The paused turn confirmation tokens belong to. Raises :class:`TurnRefused`.

        ``token``: one token, or the tokens of a batch answer (the turn is found by the
        first still-waiting card's, which the batch must hold; every other must name a card
        of the same turn). Where the two share a store, the claim takes that token too, in
        the same step (the executor still checks everything about it); a person whose calls
        an owner or a parent approves keeps their token until that approver has decided.
        ``holder``: the account the conversation must be that of (only where the store
        :meth:`~PendingTurnStore.checks_holders`); another's is answered as an unknown token.
        """
        tokens = [token] if isinstance(token, str) else list(token)
        with_token = self._joined() and not (actor is not None and actor.needs_approval)
        paused: PausedTurn | None = None
        try:
            for each in tokens:
                paused = await self.pending.take(
                    each, conversation_id, with_token=with_token, holder=holder
                )
                if paused is not None:
                    break
        except TurnBusy as exc:
            # Answered already and still running (here or in another process). Should that
            # process die, its lease lapses and the same answer carries the turn on.
            raise TurnRefused(
                "INVALID_CONFIRMATION",
                "this confirmation is already being answered; if that answer never arrives, "
                f"send it again in {max(1, round(exc.retry_after))} s to carry the turn on",
                400,
            ) from None
        if paused is None:
            # Forged, replayed, foreign or long expired: it never reaches the executor's
            # confirm stage, but the refusal is audited all the same (without the token).
            await self.executor.refuse_confirmation(channel=self.channel, actor=actor)
            more = len(tokens) > 1
            raise TurnRefused(
                "INVALID_CONFIRMATION",
                "this confirmation is unknown, already answered, expired or belongs to "
                "another conversation; send the request again to get a new one"
                + (
                    " (a batch must include the first card still waiting, pending_confirmation)"
                    if more
                    else ""
                ),
                400,
            )
        state = paused.state
        known = {c.digest for c in state.waiting} | set(state.answered)
        strangers = [t for t in tokens if token_digest(t) not in known]
        if strangers:
            # Nothing was answered: the turn goes back as it was, with its token.
            await self._pause_again(state, paused.token, paused.taken, paused.expires_at)
            await self.executor.refuse_confirmation(channel=self.channel, actor=actor)
            raise TurnRefused(
                "INVALID_CONFIRMATION",
                f"{len(strangers)} of these confirmations are not waiting in this turn; "
                "answer only the tokens of pending_confirmations, as the last answer gave them",
                400,
            )
        # An expired one still resumes: the executor records the call as expired (a
        # denial), and the model answers with what it has instead of the turn dying.
        state.claim = paused.token
        state.taken = paused.taken
        state.paused_until = paused.expires_at
        return state

    # -- running --------------------------------------------------------------------------

    async def run(
        self,
        state: TurnState,
        answer: ConfirmationReply | Sequence[ConfirmationReply] | None = None,
        actor: Actor | None = None,
    ) -> AsyncGenerator[Event, None]:
        """Drive the turn to its end or to the next round's cards, yielding events;
        ``answer`` is the person's reply (or replies) to the cards the turn was paused for.
        :meth:`stop` ends it at once: the call under way is cancelled, and calls not started
        never start; what was produced is kept."""
        yield "turn", {"conversation_id": state.conversation_id, "turn_id": state.turn_id}
        # (An in-process store hands back the very state it kept, saved at its pause.)
        state.saved = False
        paused: list[dict[str, Any]] | None = None
        failed = False
        # The answer met a store outage before its call ran: the turn is paused again.
        deferred = False
        claim = state.claim
        answers = [answer] if isinstance(answer, ConfirmationReply) else list(answer or [])
        stopper = self.stops.begin(state.conversation_id)
        try:
            async with held(self.pending, state, self.settings.state.lease_seconds):
                steps = self._steps(state, answers, actor)
                try:
                    async for event in steps:
                        if event[0] == "pending_confirmations":
                            paused = event[1]["pending_confirmations"]
                        elif event[0] == "tool_end" and claim is not None:
                            # Progress another process carries on from if this one dies.
                            await self._checkpoint(claim, state)
                        with stopper.outside():
                            yield event
                        if stopper.stopped:
                            # (Whatever the call under way did on its cancellation, no
                            # call after it starts.)
                            stopper.caught()
                            await steps.aclose()
                            break
                    stopper.settle()
                except asyncio.CancelledError:
                    if not stopper.caught():
                        raise
                except AnswerDeferred as exc:
                    stopper.settle()
                    failed = deferred = True
                    paused = shown(state, self.executor.clock())
                    yield "error", {"error": {"code": DEFERRED, "message": exc.message}}
                except ModelUnavailable as exc:
                    stopper.settle()
                    failed = True
                    yield "error", {"error": {"code": "MODEL_UNAVAILABLE", "message": exc.message}}
                except Exception:
                    stopper.settle()
                    # A bug must not cut the stream: the client still gets an error and `done`.
                    logger.exception("turn %s failed unexpectedly", state.turn_id)
                    failed = True
                    yield "error", {"error": {"code": "INTERNAL_ERROR", "message": TURN_FAILED}}
        finally:
            stopper.settle()
            self.stops.end(state.conversation_id, stopper)
            if stopper.ended_turn:
                state.notices.append({"code": STOPPED, "message": STOPPED_MESSAGE})
            if state.taken is not None:
                # Taken with the claim but never answered here (the turn had handled its
                # answer already): back to the store, to expire as it would have.
                taken, state.taken = state.taken, None
                await asyncio.shield(self.executor.give_back(taken))
            # Also on cancellation (the client went away): what was produced is kept. (A
            # deferred answer changed nothing: history holds the turn as it was.)
            if not state.saved and not deferred:
                await asyncio.shield(self._saved(state))
            if claim is not None and not deferred:
                state.claim = None
                await asyncio.shield(self._finish(claim))
        if stopper.ended_turn:
            paused = None
            yield "notice", state.notices[-1]
        if not failed or state.citations.to_list():
            yield "citations", {"citations": state.citations.for_answer(state.text)}
        yield "done", response(state, paused or [])

    def stop(self, conversation_id: str) -> bool:
        """End the turn running in this process for ``conversation_id`` at once; whether
        one was running."""
        return self.stops.stop(conversation_id)

    async def _steps(
        self, state: TurnState, answers: list[ConfirmationReply], actor: Actor | None = None
    ) -> AsyncGenerator[Event, None]:
        if answers and state.waiting:
            async for event in self._answers(state, answers, actor):
                yield event
            if state.waiting:
                # Some of the round's cards still wait (an answer named only some): the
                # turn is paused again under the first of them, once the round's calls not
                # run yet have run (a round a crashed process had not finished).
                unfinished = len(state.queue) > len(state.waiting)
                more = self._round(state, actor) if unfinished else self._keep_waiting(state)
                async for event in more:
                    yield event
            if state.waiting:
                async for event in self._pending(state):
                    yield event
                return
        limits = self.settings.llm
        while True:
            async for event in self._round(state, actor):
                yield event
            if state.waiting:
                async for event in self._pending(state):
                    yield event
                return
            final = state.rounds >= limits.max_tool_rounds
            reply = ModelAnswer(tools=[] if final else await self._tools(actor))
            async for item in ask(self.model, self.settings, state, reply):
                yield item
            if nothing_left(reply):
                # Everything the model said was a call block that could not be used (malformed,
                # or a call while no tools were offered): ask once more, without tools, so
                # the person gets an answer instead of an empty reply.
                logger.info("the model's reply was only an unusable call; asking again")
                reply = ModelAnswer(tools=[])
                async for item in ask(self.model, self.settings, state, reply):
                    yield item
                if nothing_left(reply):
                    yield "notice", notice(state, EMPTY_ANSWER, self.settings.llm.model)
            completion, tools = reply.completion, reply.tools
            assert completion is not None
            calls = completion.tool_calls[:MAX_CALLS_PER_ROUND] if tools else []
            message: dict[str, Any] = {"role": "assistant", "content": completion.content or None}
            if calls:
                message["tool_calls"] = [c.as_message_entry() for c in calls]
                if completion.reasoning:
                    # Servers such as llama-server expect the reasoning that led to a call
                    # back with it; the others ignore the field.
                    message["reasoning_content"] = completion.reasoning
            state.messages.append(message)
            if not calls:
                return
            state.rounds += 1
            state.queue = list(calls)

    async def _answer(
        self, state: TurnState, answer: ConfirmationReply, actor: Actor | None = None
    ) -> dict[str, Any]:
        """Answer one waiting card with the person's reply to it."""
        index = find(state, answer.token)
        assert index is not None
        card = state.waiting[index]
        waiting = card.card
        call = state.queue[index]
        token, approve = answer.token, answer.approve
        executor = self.executor
        # Only the card the turn was claimed by was taken with the claim.
        taken: Taken | None = None
        if token == state.claim:
            taken, state.taken = state.taken, None
        if approve:
            started = self._starter(state, card) if state.claim is not None else None
            outcome = await executor.ainvoke(
                waiting["capability"],
                waiting["version"],
                waiting["arguments"],
                channel=self.channel,
                turn=state.turn,
                confirmation_token=token,
                recovered=call.recovered,
                actor=actor,
                parked=Parked(taken=taken, started=started, returns_taken=True),
            )
            if _not_run_for_a_store(outcome):
                claim = state.claim or token
                await self._pause_again(state, claim, taken if token == claim else None)
                error = outcome.error
                raise AnswerDeferred(error.message if error is not None else "")
            # No answer used it (the call stopped before its confirm stage): back to the
            # store, to expire as it would have.
            await executor.give_back(taken)
            if answer.scope == "conversation" and outcome.stage == "execute":
                # The approval was taken for this call: "Allow for this conversation" too.
                await executor.allow_for_conversation(
                    state.conversation_id, outcome.capability, actor=actor, channel=self.channel
                )
        else:
            outcome = await executor.adeny(
                token,
                channel=self.channel,
                conversation_id=state.conversation_id,
                actor=actor,
                parked=Parked(taken=taken),
            )
        event = await self._record(state, call, outcome, replace=card.event)
        return self._answered(state, card, call, event)

    async def _record(
        self, state: TurnState, call: ToolCall, outcome: Outcome, replace: int | None = None
    ) -> dict[str, Any]:
        """Give the model the outcome as a tool result and the person a ToolEvent."""
        capability = self.registry.get(outcome.capability, outcome.version)
        # Numbered first: the model sees each source with the number to cite it by.
        state.citations.add_outcome(outcome)
        payload = tool_payload(outcome, state.citations.numbered(outcome))
        untrusted = is_untrusted(capability, outcome)
        state.messages.append(tool_message(call.id, payload, untrusted))
        state.exchanges.append(
            {
                "id": call.id,
                "name": call.name,
                "arguments": call.arguments_text,
                "payload": payload,
                "untrusted": untrusted,
            }
        )
        state.receipt.append(receipts.entry(outcome, call.arguments))
        found = observed(outcome, call.arguments, state.turn.sources)
        if found:
            state.turn.sources.extend(found)
            # This turn knows them already; the store is for later turns. So the write goes
            # on beside the checkpoint and the model's next answer, and the turn waits for
            # it only before it ends.
            state.source_writes.append(
                asyncio.create_task(self._keep_sources(state.conversation_id, found))
            )
        event = tool_event(outcome, call.arguments)
        if replace is not None and replace < len(state.events):
            state.events[replace] = event
        else:
            state.events.append(event)
        for index, queued in enumerate(state.queue):
            if queued is call:
                del state.queue[index]
                break
        return event

    def _capability_name(self, call: ToolCall) -> str:
        return self.registry.name_for_wire(call.name) or call.name


def _not_run_for_a_store(outcome: Outcome) -> bool:
    """Whether a state store's outage stopped the approved call before it ran."""
    error = outcome.error
    return (
        error is not None
        and error.code == Code.STORE_UNAVAILABLE
        and outcome.stage != "execute"
        and outcome.status != "ok"
    )


async def _yes() -> bool:
    return True
