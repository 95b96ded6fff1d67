"""Asking the owner through MCP elicitation before a web call leaves the device.

The executor's token flow does the deciding: a call without a token comes back
``pending_confirmation``; this module shows the owner the exact call and, on acceptance, runs it
once more with that token (the executor consumes it exactly once) or, on refusal, spends it with
``executor.deny``. How the question travels depends on the protocol revision the client speaks:

* up to 2025-11-25, the server sends ``elicitation/create`` mid-call and waits for the answer;
* from 2026-07-28, the server returns an ``input_required`` result carrying the question and
  the token (inside ``requestState``, sealed by the SDK so the client can neither read nor
  change it); the client asks, then retries the call with the answer.

A client that declared no form elicitation cannot ask, and gets :class:`CannotAsk` back.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import anyio
import mcp.types as types
from mcp.server.context import ServerRequestContext
from mcp.types.version import is_version_at_least

from spyglass import jsontext
from spyglass.capabilities.recipients import recipient_line, split_arguments
from spyglass.core.actor import Actor
from spyglass.core.capability import Capability
from spyglass.core.confirmation import TOKEN_TTL_SECONDS
from spyglass.core.context import Turn
from spyglass.core.executor import Executor
from spyglass.core.outcome import Notice, Outcome
from spyglass.privacy.notices import lines as notice_lines
from spyglass.untrusted import shown

logger = logging.getLogger(__name__)

CHANNEL = "mcp"

#: First protocol revision that carries elicitation inside an ``input_required`` result.
INPUT_REQUIRED_VERSION = "2026-07-28"

#: How long the owner has to answer. A little under the token's lifetime, so that an unanswered
#: question is refused (and audited as ``denied``) while its token still exists.
ASK_SECONDS = TOKEN_TTL_SECONDS - 5

#: Our key in ``inputRequests``/``inputResponses``.
APPROVAL_KEY = "spyglass_approval"
_STATE_VERSION = 1

#: The form the owner answers: one yes/no, pre-set to yes so "Accept" means approve.
APPROVAL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "approve": {
            "type": "boolean",
            "title": "Run this call",
            "description": "Send exactly what is shown above to the internet, once.",
            "default": True,
        }
    },
}


@dataclass(frozen=True)
class CannotAsk:
    """The call needs the owner's approval and this client has no way to ask for it."""

    capability: Capability


def approval_message(
    capability: Capability,
    arguments: dict[str, Any],
    notices: Sequence[Notice] = (),
    provider: str | None = None,
) -> str:
    """What the owner sees: which capability, who receives it, the literal arguments, that
    they leave, and what the checks noticed (private data in the call, where its URL came
    from)."""
    lines = [
        f"Approve {capability.title} ({capability.name} v{capability.version})?",
        "This call leaves this device: what is shown below is sent to the internet.",
        "",
    ]
    said = recipient_line(capability.name, provider)
    if said is not None:
        lines.append(said)
    # Each value in a code span, its hidden characters escaped: one line that cannot end,
    # restyle (Markdown, HTML) or reverse (bidi controls) what Spyglass says around it.
    sent, kept = split_arguments(arguments)
    for key, value in sent:
        lines.append(f"{key}: {shown.code(value)}")
    for label, value in kept:
        lines.append(f"{label}: {shown.code(value)} (stays on this device, never sent)")
    if notices:
        lines += ["", *notice_lines(notices, arguments, markdown=True)]
    return "\n".join(lines)


def client_can_elicit(capabilities: types.ClientCapabilities | None) -> bool:
    """True when the client declared form elicitation (a bare ``elicitation: {}`` counts)."""
    elicitation = capabilities.elicitation if capabilities is not None else None
    if elicitation is None:
        return False
    return elicitation.form is not None or elicitation.url is None


def uses_input_required(protocol_version: str | None) -> bool:
    return protocol_version is not None and is_version_at_least(
        protocol_version, INPUT_REQUIRED_VERSION
    )


def approves(answer: types.ElicitResult) -> bool:
    """Accept means yes, unless the ``approve`` box came back as anything but ``true``.

    A missing box is a yes (some hosts send no content for a bare accept); a cleared box, or a
    value a careless host spelled as ``"false"`` or ``0``, is a no.
    """
    if answer.action != "accept":
        return False
    return (answer.content or {}).get("approve", True) is True


def encode_state(token: str) -> str:
    return json.dumps({"v": _STATE_VERSION, "token": token}, separators=(",", ":"))


def decode_state(state: str | None) -> str | None:
    """The token carried in a retry's ``requestState``, or ``None`` when there is none."""
    if not state:
        return None
    try:
        data = jsontext.loads(state)
    except ValueError:
        return None
    if not isinstance(data, dict) or data.get("v") != _STATE_VERSION:
        return None
    token = data.get("token")
    return token if isinstance(token, str) else None


class ConfirmationFlow:
    """Runs one ``tools/call`` through the executor, asking the owner when it must."""

    def __init__(self, executor: Executor, *, ask_timeout: float = ASK_SECONDS) -> None:
        self.executor = executor
        self.ask_timeout = ask_timeout
        #: 2026-07-28 questions out with a client, token → when to give up on the answer, and
        #: the person the call was made for (``None``: the owner, locally).
        self._unanswered: dict[str, tuple[float, Actor | None]] = {}
        #: Handshake-era questions being asked right now: token → whose call it is.
        self._asking: dict[str, Actor | None] = {}

    async def run(
        self,
        ctx: ServerRequestContext[Any, Any],
        capability: Capability,
        arguments: Any,
        params: types.CallToolRequestParams,
        actor: Actor | None = None,
    ) -> Outcome | types.InputRequiredResult | CannotAsk:
        """The finished outcome, a question for a 2026-07-28 client, or :class:`CannotAsk`.

        ``arguments`` are whatever the client sent; the executor validates them. The call is
        ``actor``'s (``None``: the owner, locally).
        """
        token = decode_state(params.request_state)
        if token is not None:
            # A 2026-07-28 retry: this call was already checked and is waiting for its answer.
            return await self._resume(capability, arguments, token, params, actor)

        turn = Turn()
        outcome = await self.executor.ainvoke(
            capability.name,
            capability.version,
            arguments,
            channel=CHANNEL,
            turn=turn,
            actor=actor,
        )
        pending = outcome.pending_confirmation
        if pending is None:
            return outcome
        if not client_can_elicit(ctx.session.client_capabilities):
            return await self._cannot_ask(capability, pending.token, actor)
        if uses_input_required(ctx.protocol_version):
            self._unanswered[pending.token] = (anyio.current_time() + self.ask_timeout, actor)
            return self._question(
                capability, arguments, pending.token, pending.notices, pending.provider
            )
        if not ctx.session.can_send_request:
            # A handshake-era channel with no way back to the client mid-call cannot ask either.
            return await self._cannot_ask(capability, pending.token, actor)
        return await self._ask_now(
            ctx,
            capability,
            arguments,
            pending.token,
            turn,
            actor,
            pending.notices,
            pending.provider,
        )

    async def _cannot_ask(
        self, capability: Capability, token: str, actor: Actor | None
    ) -> CannotAsk:
        # Nobody can approve this attempt: spend its token now so the audit log ends it with
        # one terminal event instead of a pending call that silently expires.
        await self.executor.adeny(token, channel=CHANNEL, actor=actor)
        return CannotAsk(capability)

    def _question(
        self,
        capability: Capability,
        arguments: dict[str, Any],
        token: str,
        notices: Sequence[Notice] = (),
        provider: str | None = None,
    ) -> types.InputRequiredResult:
        request = types.ElicitRequest(
            params=types.ElicitRequestFormParams(
                message=approval_message(capability, arguments, notices, provider),
                requested_schema=APPROVAL_SCHEMA,
            )
        )
        return types.InputRequiredResult(
            input_requests={APPROVAL_KEY: request}, request_state=encode_state(token)
        )

    async def _resume(
        self,
        capability: Capability,
        arguments: dict[str, Any],
        token: str,
        params: types.CallToolRequestParams,
        actor: Actor | None,
    ) -> Outcome | types.InputRequiredResult:
        answer = (params.input_responses or {}).get(APPROVAL_KEY)
        if not isinstance(answer, types.ElicitResult):
            # Retried without an answer to our question: ask it again, same token.
            return self._question(capability, arguments, token)
        self._unanswered.pop(token, None)
        return await self._decide(capability, arguments, token, answer, Turn(), actor)

    async def refuse_unanswered(self) -> int:
        """Spend the token of every 2026-07-28 question whose answer is overdue.

        Such a client got its question back as a result and may never return (the person
        closed the dialog, the host crashed): without this the attempt would end silently when
        the token expired. Returns how many were refused.
        """
        now = anyio.current_time()
        overdue = [token for token, (deadline, _) in self._unanswered.items() if deadline <= now]
        for token in overdue:
            _, actor = self._unanswered.pop(token)
            await self.executor.adeny(token, channel=CHANNEL, actor=actor)
        return len(overdue)

    async def refuse_all(self) -> int:
        """Spend the token of every question still open, of either era: the server is
        stopping (stdin ended, the HTTP session was deleted), so nobody can answer any more,
        and each attempt must still end with one terminal event. Returns how many."""
        tokens = [*((t, a) for t, (_, a) in self._unanswered.items()), *self._asking.items()]
        self._unanswered.clear()
        self._asking.clear()
        with anyio.CancelScope(shield=True):
            for token, actor in tokens:
                await self.executor.adeny(token, channel=CHANNEL, actor=actor)
        return len(tokens)

    async def refuse_unanswered_forever(self, interval: float) -> None:
        """Run :meth:`refuse_unanswered` every ``interval`` seconds until cancelled."""
        while True:
            await anyio.sleep(interval)
            await self.refuse_unanswered()

    async def _ask_now(
        self,
        ctx: ServerRequestContext[Any, Any],
        capability: Capability,
        arguments: dict[str, Any],
        token: str,
        turn: Turn,
        actor: Actor | None,
        notices: Sequence[Notice] = (),
        provider: str | None = None,
    ) -> Outcome:
        self._asking[token] = actor
        try:
            with anyio.fail_after(self.ask_timeout):
                answer = await ctx.session.elicit_form(
                    message=approval_message(capability, arguments, notices, provider),
                    requested_schema=APPROVAL_SCHEMA,
                    related_request_id=ctx.request_id,
                )
        except anyio.get_cancelled_exc_class():
            # The host gave up on the whole call (it cancelled the request, as the TypeScript
            # SDK does after 60 s, or went away): the call never runs, and the attempt still
            # ends in the audit log as refused. Shielded, so the denial completes even inside
            # the cancelled scope.
            logger.info("approval request for %s was cancelled by the host", capability.name)
            await self._refuse_asked(token)
            raise
        except Exception as exc:
            # No usable answer (timed out, refused by the host, connection gone): the call does
            # not run, and the token is spent as a refusal. Shielded too: a connection that is
            # gone usually means the server is being stopped around this call.
            logger.warning(
                "approval request for %s got no answer (%s)", capability.name, type(exc).__name__
            )
            refused = await self._refuse_asked(token)
            if refused is None:
                raise
            return refused
        # Had the server stopped while the answer was on its way, refuse_all spent the token
        # already, and the executor refuses the answer as it refuses a replayed one.
        self._asking.pop(token, None)
        return await self._decide(capability, arguments, token, answer, turn, actor)

    async def _refuse_asked(self, token: str) -> Outcome | None:
        """Deny an asked question's token unless :meth:`refuse_all` already did (``None``)."""
        if token not in self._asking:
            return None
        actor = self._asking.pop(token)
        with anyio.CancelScope(shield=True):
            refused = await self.executor.adeny(token, channel=CHANNEL, actor=actor)
        return refused

    async def _decide(
        self,
        capability: Capability,
        arguments: dict[str, Any],
        token: str,
        answer: types.ElicitResult,
        turn: Turn,
        actor: Actor | None,
    ) -> Outcome:
        if not approves(answer):
            return await self.executor.adeny(token, channel=CHANNEL, actor=actor)
        return await self.executor.ainvoke(
            capability.name,
            capability.version,
            arguments,
            channel=CHANNEL,
            turn=turn,
            confirmation_token=token,
            actor=actor,
        )
