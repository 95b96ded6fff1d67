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
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from typing import Any

from spyglass.conversation.asking import EMPTY_ANSWER, ModelAnswer, ask, nothing_left, notice
from spyglass.conversation.events import tool_event
from spyglass.conversation.keeping import TurnKeeper
from spyglass.conversation.pending import (
    PausedTurn,
    PendingTurnStore,
    TurnBusy,
    TurnState,
    expiry,
    held,
)
from spyglass.conversation.reply import response
from spyglass.conversation.transcript import is_untrusted, replay, tool_message, tool_payload
from spyglass.core.actor import Actor
from spyglass.core.capability import Capability
from spyglass.core.confirmation import ConfirmationReply, PendingRecord, Scope, Taken
from spyglass.core.context import Turn
from spyglass.core.encoding import printable
from spyglass.core.executor import Executor
from spyglass.core.outcome import Code, Outcome
from spyglass.core.parked import Keep, Parked
from spyglass.core.policy import PolicySource, capability_allowed, read_snapshot
from spyglass.errors import RequestRefused, SpyglassError, StoreUnavailable
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


class ConversationRunner(TurnKeeper):
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
        token: str,
        actor: Actor | None = None,
        *,
        holder: str | None = None,
    ) -> TurnState:
        """The paused turn a confirmation token belongs to. Raises :class:`TurnRefused`.

        Where the two share a store, the claim takes the token too, in the same step (the
        executor still checks everything about it); a person whose calls an owner or a
        parent approves keeps their token until that approver has decided. ``holder``: the
        account the conversation must be that of (only where the store
        :meth:`~PendingTurnStore.checks_holders`); another's is answered as an unknown token.
        """
        with_token = self._joined() and not (actor is not None and actor.needs_approval)
        try:
            paused = await self.pending.take(
                token, conversation_id, with_token=with_token, holder=holder
            )
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
            raise TurnRefused(
                "INVALID_CONFIRMATION",
                "this confirmation is unknown, already answered, expired or belongs to "
                "another conversation; send the request again to get a new one",
                400,
            )
        # An expired one still resumes: the executor records the call as expired (a
        # denial), and the model answers with what it has instead of the turn dying.
        paused.state.claim = token
        paused.state.taken = paused.taken
        paused.state.paused_until = paused.expires_at
        return paused.state

    # -- running --------------------------------------------------------------------------

    async def run(
        self,
        state: TurnState,
        answer: ConfirmationReply | None = None,
        actor: Actor | None = None,
    ) -> AsyncGenerator[Event, None]:
        """Drive the turn to its end or to the next confirmation, yielding events;
        ``answer`` is the person's reply to the card the turn was paused for."""
        yield "turn", {"conversation_id": state.conversation_id, "turn_id": state.turn_id}
        # (An in-process store hands back the very state it kept, saved at its pause.)
        state.saved = False
        paused: dict[str, Any] | None = None
        failed = False
        # The answer met a store outage before its call ran: the turn is paused again.
        deferred = False
        claim = state.claim
        try:
            async with held(self.pending, state, self.settings.state.lease_seconds):
                try:
                    async for event in self._steps(state, answer, actor):
                        if event[0] == "pending_confirmation":
                            paused = event[1]
                        elif event[0] == "tool_end" and claim is not None:
                            # Progress another process carries on from if this one dies.
                            await self._checkpoint(claim, state)
                        yield event
                except AnswerDeferred as exc:
                    failed = deferred = True
                    paused = state.waiting
                    yield "error", {"error": {"code": DEFERRED, "message": exc.message}}
                except ModelUnavailable as exc:
                    failed = True
                    yield "error", {"error": {"code": "MODEL_UNAVAILABLE", "message": exc.message}}
                except Exception:
                    # A bug must not cut the stream: the client still gets an error and `done`.
                    logger.exception("turn %s failed unexpectedly", state.turn_id)
                    failed = True
                    yield "error", {"error": {"code": "INTERNAL_ERROR", "message": TURN_FAILED}}
        finally:
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
        if not failed or state.citations.to_list():
            yield "citations", {"citations": state.citations.for_answer(state.text)}
        yield "done", response(state, paused)

    async def _steps(
        self, state: TurnState, answer: ConfirmationReply | None, actor: Actor | None = None
    ) -> AsyncIterator[Event]:
        if answer is not None and state.waiting is not None:
            # (A turn carried on after a crash may have handled its answer already.)
            token, approve = answer.token, answer.approve
            if state.started is not None:
                event = await self._interrupted(state, actor)
            else:
                event = await self._answer(state, token, approve, actor, answer.scope)
            yield "tool_end", event
        limits = self.settings.llm
        while True:
            while state.queue:
                call = state.queue[0]
                name = self._capability_name(call)
                yield "tool_start", {"capability": name, "arguments": _shown(call)}
                outcome = await self.executor.ainvoke(
                    name,
                    None,
                    call.arguments,
                    channel=self.channel,
                    turn=state.turn,
                    recovered=call.recovered,
                    actor=actor,
                    parked=Parked(keep=self._keeper(state, call)) if self._joined() else None,
                )
                if outcome.pending_confirmation is not None:
                    if state.waiting is None:
                        # The executor kept its token itself: the turn is kept on its own.
                        _wait(state, call, outcome)
                        clock = self.executor.clock
                        token = outcome.pending_confirmation.token
                        await self._pause(PausedTurn(token, state, expiry(clock)))
                    assert state.waiting is not None and state.waiting_event is not None
                    yield "tool_end", state.events[state.waiting_event]
                    yield "pending_confirmation", state.waiting
                    return
                yield "tool_end", await self._record(state, call, outcome)
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

    def _keeper(self, state: TurnState, call: ToolCall) -> Keep:
        """Keeps a confirmation the executor issues for ``call`` together with the turn it
        pauses, in one store step; the turn is left as it was if that step fails."""

        async def keep(record: PendingRecord, outcome: Outcome) -> None:
            _wait(state, call, outcome)
            try:
                await self._pause(PausedTurn(record.token, state, record.expires_at), record)
            except BaseException:
                state.events.pop()
                state.waiting = state.waiting_event = None
                state.saved = False
                raise

        return keep

    async def _answer(
        self,
        state: TurnState,
        token: str,
        approve: bool,
        actor: Actor | None = None,
        scope: Scope = "call",
    ) -> dict[str, Any]:
        waiting = state.waiting or {}
        call = state.queue[0]
        executor = self.executor
        taken, state.taken = state.taken, None
        if approve:
            started = self._starter(state) if state.claim is not None else None
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
                await self._pause_again(state, token, taken)
                error = outcome.error
                raise AnswerDeferred(error.message if error is not None else "")
            # No answer used it (the call stopped before its confirm stage): back to the
            # store, to expire as it would have.
            await executor.give_back(taken)
            if scope == "conversation" and outcome.stage == "execute":
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
        event = await self._record(state, call, outcome, replace=state.waiting_event)
        state.waiting = state.waiting_event = None
        state.started = None
        return event

    async def _pause_again(self, state: TurnState, token: str, taken: Taken | None) -> None:
        """Keep the claimed turn paused again under ``token``, with the approval it was
        claimed with (taken or not by the answer: its call did not run), in one store step:
        the token is never put back without its turn. Should that step fail too, the turn
        stays claimed with its approval where the store keeps it with the turn (Redis, the
        state file): the same approval carries it on once the lease has lapsed."""
        state.started = None
        record = taken.record if taken is not None else None
        until = record.expires_at if record is not None else state.paused_until
        if until is None:
            until = expiry(self.executor.clock)
        try:
            await self.pending.put(PausedTurn(token, state, until), record)
        except StoreUnavailable as exc:
            logger.warning("could not pause the turn again: %s", exc.message)

    def _starter(self, state: TurnState) -> Callable[[str], Awaitable[None]]:
        """Records in the paused-turn store that the approved call is about to leave; raises
        (and the call does not leave) when that cannot be recorded."""
        claim = state.claim
        assert claim is not None

        async def started(invocation_id: str) -> None:
            state.started = {"invocation_id": invocation_id}
            try:
                await self.pending.checkpoint(claim, state)
            except BaseException:
                state.started = None
                raise

        return started

    async def _interrupted(self, state: TurnState, actor: Actor | None = None) -> dict[str, Any]:
        """The approved call the crashed process had started: it may have been sent, so it
        is recorded as such (receipt, history, audit) and never sent again."""
        waiting = state.waiting or {}
        started = state.started or {}
        call = state.queue[0]
        outcome = await self.executor.interrupted(
            waiting["capability"],
            waiting.get("version"),
            str(started.get("invocation_id", "")),
            channel=self.channel,
            actor=actor,
        )
        if state.taken is not None:
            # (Never there: the crashed process took the approval.)
            taken, state.taken = state.taken, None
            await self.executor.give_back(taken)
        event = await self._record(state, call, outcome, replace=state.waiting_event)
        state.waiting = state.waiting_event = None
        state.started = None
        return event

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
        if state.queue and state.queue[0] is call:
            state.queue.pop(0)
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


def _wait(state: TurnState, call: ToolCall, outcome: Outcome) -> None:
    """Record in ``state`` that ``call`` waits for the confirmation ``outcome`` asks for."""
    assert outcome.pending_confirmation is not None
    state.waiting = outcome.pending_confirmation.to_dict()
    state.waiting_event = len(state.events)
    state.events.append(tool_event(outcome, call.arguments))


async def _yes() -> bool:
    return True


def _shown(call: ToolCall) -> dict[str, Any]:
    shown: dict[str, Any] = printable(call.arguments) if isinstance(call.arguments, dict) else {}
    return shown
