"""One model response within a turn: streamed into a :class:`ModelAnswer`, with what the
person sees yielded as it arrives, and the notices a response can leave for them."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from spyglass.conversation.pending import TurnState
from spyglass.core.capability import Capability
from spyglass.llm.client import Completion, ModelClient, ModelUnavailable, ToolsRefused
from spyglass.llm.prompt import system_prompt
from spyglass.settings import Settings

logger = logging.getLogger(__name__)

Event = tuple[str, dict[str, Any]]

#: Notice codes (the ``notice`` event and the reply's ``notices``).
MODEL_WITHOUT_TOOLS = "MODEL_WITHOUT_TOOLS"
EMPTY_ANSWER = "EMPTY_ANSWER"


@dataclass
class ModelAnswer:
    """One model response: the tools it was offered and, once streamed, what it said."""

    tools: list[Capability]
    completion: Completion | None = None


async def ask(
    model: ModelClient, settings: Settings, state: TurnState, answer: ModelAnswer
) -> AsyncIterator[Event]:
    """Stream one model response into ``answer``, yielding what the person sees.

    A server that refuses tools for this model is asked again at once without them; it
    is remembered for a while, and the person is told once.
    """
    try:
        async for event in _stream(model, settings, state, answer):
            yield event
    except ToolsRefused:
        logger.info("the model server refused tools for this model; answering without")
        answer.tools = []
        if state.messages and state.messages[0].get("role") == "system":
            state.messages[0] = {
                "role": "system",
                "content": system_prompt([], settings.llm.system_prompt),
            }
        yield "notice", notice(state, MODEL_WITHOUT_TOOLS, settings.llm.model)
        async for event in _stream(model, settings, state, answer):
            yield event


async def _stream(
    model: ModelClient, settings: Settings, state: TurnState, answer: ModelAnswer
) -> AsyncIterator[Event]:
    tools = [c.openai_tool(settings) for c in answer.tools] or None
    async for item in model.stream(state.messages, tools):
        if isinstance(item, Completion):
            answer.completion = item
        elif item.kind == "content":
            state.text += item.text
            yield "content", {"delta": item.text}
        else:
            state.reasoning += item.text
            yield "reasoning", {"delta": item.text}
    if answer.completion is None:  # pragma: no cover - the client always ends with one
        raise ModelUnavailable("the model server ended without an answer")
    if answer.completion.malformed_calls:
        logger.warning("dropped %d malformed tool-call block(s)", answer.completion.malformed_calls)


def notice(state: TurnState, code: str, model: str | None) -> dict[str, Any]:
    """A notice for the person (``notice`` event and the reply's ``notices``), kept in
    ``state``; ``model`` is the configured model's name, if any."""
    if code == MODEL_WITHOUT_TOOLS:
        who = f"The model {model!r}" if model else "This model"
        message = (
            f"{who} cannot use tools, so it cannot search the web or read pages; it "
            "answers from what it knows. To let the assistant use the web, choose a model "
            "with tool support in llm.model (for Ollama, one whose page lists 'tools')."
        )
    else:
        message = (
            "The model answered only with a tool call that could not be used, even when "
            "asked again without tools, so there is no answer to show. Ask again, perhaps "
            "in other words."
        )
    found = {"code": code, "message": message}
    state.notices.append(found)
    return found


def nothing_left(answer: ModelAnswer) -> bool:
    """Whether the reply is empty only because unusable call blocks were dropped from it."""
    completion = answer.completion
    if completion is None or completion.content.strip():
        return False
    if completion.tool_calls and answer.tools:
        return False  # real calls to run
    return bool(completion.malformed_calls or completion.tool_calls)
