"""One model response: when an empty reply is worth asking again, and the notices."""

from __future__ import annotations

import pytest

from spyglass.capabilities import BUILTIN
from spyglass.conversation.asking import (
    EMPTY_ANSWER,
    MODEL_WITHOUT_TOOLS,
    ModelAnswer,
    nothing_left,
    notice,
)
from spyglass.conversation.pending import TurnState
from spyglass.core.context import Turn
from spyglass.llm.client import Completion
from spyglass.llm.toolcalls import ToolCall

CALL = ToolCall(id="c1", name="web_search", arguments={"query": "tides"})


def answer(content: str = "", *, calls: int = 0, malformed: int = 0, tools: bool) -> ModelAnswer:
    completion = Completion(
        content=content, reasoning="", tool_calls=[CALL] * calls, malformed_calls=malformed
    )
    return ModelAnswer(tools=list(BUILTIN) if tools else [], completion=completion)


@pytest.mark.parametrize(
    ("reply", "empty"),
    [
        (answer("It is high tide at six.", malformed=1, tools=True), False),
        (answer(calls=1, tools=True), False),
        (answer(calls=1, tools=False), True),
        (answer(malformed=1, tools=True), True),
        (answer(tools=True), False),
        (ModelAnswer(tools=[]), False),
    ],
    ids=[
        "text beside a malformed block",
        "a call to run",
        "a call while no tools were offered",
        "only a malformed block",
        "a reply empty of its own accord",
        "nothing streamed yet",
    ],
)
def test_a_reply_is_empty_only_when_unusable_call_blocks_were_all_it_held(
    reply: ModelAnswer, empty: bool
) -> None:
    assert nothing_left(reply) is empty


def state() -> TurnState:
    return TurnState(conversation_id="c", turn_id="t", messages=[], turn=Turn())


def test_a_notice_is_kept_in_the_turn_and_names_the_configured_model() -> None:
    turn = state()
    found = notice(turn, MODEL_WITHOUT_TOOLS, "tiny:1b")
    assert turn.notices == [found]
    assert found["code"] == MODEL_WITHOUT_TOOLS
    assert found["message"].startswith("The model 'tiny:1b' cannot use tools")


def test_without_a_configured_model_the_notice_says_this_model() -> None:
    found = notice(state(), MODEL_WITHOUT_TOOLS, "")
    assert found["message"].startswith("This model cannot use tools")


def test_an_empty_answer_notice_says_to_ask_again() -> None:
    found = notice(state(), EMPTY_ANSWER, "tiny:1b")
    assert found["code"] == EMPTY_ANSWER
    assert "Ask again" in found["message"]
