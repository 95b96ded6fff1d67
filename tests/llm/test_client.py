"""The streaming client against the scripted fake model over real loopback HTTP."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Iterator

import httpx
import pytest

from spyglass.llm.client import Completion, Delta, ModelClient, ModelUnavailable, ToolsRefused
from spyglass.settings import LLMSettings
from tests.support.fake_model import (
    FakeModel,
    Reply,
    refuses_tools,
    text,
    tool_call,
    tool_calls,
)


@pytest.fixture
def fake_model() -> Iterator[FakeModel]:
    with FakeModel() as model:
        yield model


@pytest.fixture
async def client(fake_model: FakeModel) -> AsyncIterator[ModelClient]:
    model = ModelClient(LLMSettings(base_url=fake_model.base_url, model="m", api_key="sk-x"))
    yield model
    await model.aclose()


async def collect(client: ModelClient, tools: list | None = None) -> tuple[list[Delta], Completion]:
    deltas: list[Delta] = []
    completion = None
    async for item in client.stream([{"role": "user", "content": "hi"}], tools):
        if isinstance(item, Completion):
            completion = item
        else:
            deltas.append(item)
    assert completion is not None
    return deltas, completion


async def test_content_and_reasoning_stream_as_deltas(
    client: ModelClient, fake_model: FakeModel
) -> None:
    fake_model.script(text("The answer.", reasoning="thinking hard"))
    deltas, completion = await collect(client)
    assert "".join(d.text for d in deltas if d.kind == "content") == "The answer."
    assert "".join(d.text for d in deltas if d.kind == "reasoning") == "thinking hard"
    assert completion.content == "The answer." and completion.finish_reason == "stop"
    request = fake_model.requests[0]
    assert request["model"] == "m" and request["stream"] is True and "tools" not in request


async def test_reasoning_in_the_ollama_field_is_read_too(
    client: ModelClient, fake_model: FakeModel
) -> None:
    fake_model.script(Reply(deltas=[{"reasoning": "hmm"}, {"content": "ok"}]))
    _, completion = await collect(client)
    assert completion.reasoning == "hmm"


async def test_fragmented_tool_calls_come_back_whole(
    client: ModelClient, fake_model: FakeModel
) -> None:
    fake_model.script(tool_call("web_search", {"query": "otters"}, pieces=5))
    tools = [{"type": "function", "function": {"name": "web_search", "parameters": {}}}]
    _, completion = await collect(client, tools)
    [call] = completion.tool_calls
    assert call.arguments == {"query": "otters"}
    assert fake_model.requests[0]["tools"] == tools


async def test_calls_with_finish_reason_stop_are_still_calls(
    client: ModelClient, fake_model: FakeModel
) -> None:
    fake_model.script(
        tool_calls(("web_search", {"query": "a"}, "1"), ("web_fetch", {"url": "u"}, "2"))
    )
    _, completion = await collect(client)
    assert completion.finish_reason == "stop"
    assert [c.name for c in completion.tool_calls] == ["web_search", "web_fetch"]


async def test_a_tool_call_leaked_into_reasoning_is_recovered_and_not_shown(
    client: ModelClient, fake_model: FakeModel
) -> None:
    leaked = '<tool_call>{"name": "web_search", "arguments": {"query": "q"}}</tool_call>'
    fake_model.script(
        Reply(
            deltas=[
                {"reasoning_content": "I should search. " + leaked[:20]},
                {"reasoning_content": leaked[20:]},
            ]
        )
    )
    deltas, completion = await collect(client)
    assert all("tool_call" not in d.text for d in deltas)
    [call] = completion.tool_calls
    assert call.recovered and call.arguments == {"query": "q"}
    assert completion.reasoning.strip() == "I should search."


async def test_the_api_key_is_sent_as_a_bearer_token(
    client: ModelClient, fake_model: FakeModel
) -> None:
    fake_model.script(text("ok"))
    await collect(client)
    assert fake_model.headers[0]["authorization"] == "Bearer sk-x"


async def test_an_error_status_names_the_url(client: ModelClient, fake_model: FakeModel) -> None:
    fake_model.script(Reply(status=500))
    with pytest.raises(ModelUnavailable, match="HTTP 500") as raised:
        await collect(client)
    assert fake_model.base_url in raised.value.message


@pytest.mark.parametrize(
    ("body", "shown"),
    [
        (b'{"error": {"message": "model is required"}}', '("model is required")'),
        (b'{"detail": "model is required"}', '("model is required")'),
        (b"<html><body><h1>model  is required</h1></body></html>", '("model is required")'),
    ],
)
async def test_an_error_status_carries_the_servers_own_reason(
    client: ModelClient, fake_model: FakeModel, body: bytes, shown: str
) -> None:
    fake_model.script(Reply(status=400, error_body=body))
    with pytest.raises(ModelUnavailable) as raised:
        await collect(client)
    assert f"answered HTTP 400 {shown}. Check that it is running" in raised.value.message


async def test_the_servers_reason_is_bounded_and_plain(
    client: ModelClient, fake_model: FakeModel
) -> None:
    reason = "<b>bad</b> " + "\u202ex" * 2000
    fake_model.script(Reply(status=400, error_body=json.dumps({"error": reason}).encode()))
    with pytest.raises(ModelUnavailable) as raised:
        await collect(client)
    assert "<b>" not in raised.value.message and "\u202e" not in raised.value.message
    assert len(raised.value.message) < 700


async def test_an_unreachable_server_is_model_unavailable() -> None:
    with FakeModel() as gone:
        url = gone.base_url
    model = ModelClient(LLMSettings(base_url=url, connect_timeout_seconds=2))
    with pytest.raises(ModelUnavailable, match="cannot be reached"):
        await collect(model)
    await model.aclose()


async def test_a_stream_that_breaks_midway_is_model_unavailable(
    client: ModelClient, fake_model: FakeModel
) -> None:
    fake_model.script(Reply(deltas=[{"content": "a"}, {"content": "b"}], break_after=1))
    with pytest.raises(ModelUnavailable, match="broke off"):
        await collect(client)


async def test_a_stream_that_ends_without_finishing_is_model_unavailable(
    client: ModelClient, fake_model: FakeModel
) -> None:
    fake_model.script(Reply(deltas=[{"content": "a"}], finish_reason=None, send_done=False))
    with pytest.raises(ModelUnavailable, match="broke off"):
        await collect(client)


async def test_a_slow_model_past_the_deadline_is_model_unavailable(fake_model: FakeModel) -> None:
    fake_model.script(Reply(deltas=[{"content": "a"}, {"content": "b"}], delay=0.5))
    model = ModelClient(LLMSettings(base_url=fake_model.base_url, timeout_seconds=0.2))
    with pytest.raises(ModelUnavailable, match="in time"):
        await collect(model)
    await model.aclose()


async def test_a_server_that_ignores_stream_and_answers_whole_json_is_understood(
    client: ModelClient, fake_model: FakeModel
) -> None:
    reply = tool_calls(("web_search", {"query": "a"}, "w1"), style="openai")
    reply.deltas.insert(1, {"content": "Looking."})
    reply.whole = True
    fake_model.script(reply)
    deltas, completion = await collect(client)
    assert [d.text for d in deltas] == ["Looking."]
    [call] = completion.tool_calls
    assert (call.id, call.arguments) == ("w1", {"query": "a"})


@pytest.mark.parametrize("dialect", ["ollama", "llama-server", "vllm"])
async def test_a_model_that_cannot_take_tools_is_told_apart_and_remembered(
    client: ModelClient, fake_model: FakeModel, dialect: str
) -> None:
    fake_model.script(refuses_tools(dialect))
    with pytest.raises(ToolsRefused) as refused:
        await collect(client, [{"type": "function", "function": {"name": "web_search"}}])
    assert "cannot use tools" in refused.value.message and "'m'" in refused.value.message
    assert client.tools_refused()


async def test_the_same_words_without_tools_in_the_request_are_a_plain_failure(
    client: ModelClient, fake_model: FakeModel
) -> None:
    fake_model.script(refuses_tools("ollama"))
    with pytest.raises(ModelUnavailable) as failed:
        await collect(client)
    assert not isinstance(failed.value, ToolsRefused)
    assert not client.tools_refused()


async def test_consecutive_answers_share_one_connection_to_the_model(
    client: ModelClient, fake_model: FakeModel
) -> None:
    # httpx pools a connection only once its body was read to the end: stopping at
    # ``[DONE]`` would cost a new connection (a connect and a close) per model request.
    fake_model.script(text("one"), tool_call("web_search", {"query": "x"}), text("three"))
    for _ in range(3):
        await collect(client)
    assert len(fake_model.peers) == 3
    assert len(set(fake_model.peers)) == 1, fake_model.peers


async def test_a_body_held_open_after_done_does_not_hold_up_the_answer(
    client: ModelClient, fake_model: FakeModel
) -> None:
    fake_model.script(Reply(deltas=[{"content": "held"}], hold_after_done=5.0), text("next"))
    started = time.monotonic()
    _, completion = await collect(client)
    assert completion.content == "held"
    assert time.monotonic() - started < 2.0
    # The connection left mid-body is not reused; the next answer comes on a new one.
    _, after = await collect(client)
    assert after.content == "next"
    assert fake_model.peers[0] != fake_model.peers[1]


async def test_the_tools_sent_follow_their_description_and_schema_every_time(
    client: ModelClient, fake_model: FakeModel
) -> None:
    schema = {"type": "object", "properties": {"query": {"type": "string"}}}

    def tool(description: str, parameters: dict) -> dict:
        function = {"name": "web_search", "description": description, "parameters": parameters}
        return {"type": "function", "function": function}

    sent = [
        [tool("Search the web.", schema)],
        [tool("Search the web.", schema), tool("Ünïcode “quotes”.", {"type": "object"})],
        [tool("At most 3 results per search.", schema)],
        [tool("Search the web.", {"type": "object", "properties": {}})],
        [{"type": "function", "function": {"name": "other", "parameters": schema}}],
    ]
    for tools in sent:
        fake_model.script(text("ok"))
        await collect(client, tools)
    assert [request["tools"] for request in fake_model.requests] == sent
    assert all(request["tool_choice"] == "auto" for request in fake_model.requests)
    assert fake_model.headers[0]["content-type"] == "application/json"


async def test_a_lone_surrogate_escaped_in_the_answer_is_repaired_and_a_pair_is_kept(
    client: ModelClient, fake_model: FakeModel
) -> None:
    # The fake model writes JSON with every non-ASCII character escaped: the lone one is
    # sent as \udce9, the emoji as the pair \ud83d\ude00.
    fake_model.script(text("caf\udce9 and \U0001f600", reasoning="hmm \ud800", pieces=1))
    deltas, completion = await collect(client)
    assert completion.content == "caf\ufffd and \U0001f600"
    assert completion.reasoning == "hmm \ufffd"
    assert all(delta.text.encode("utf-8") for delta in deltas)


class _Pieces(httpx.AsyncByteStream):
    def __init__(self, pieces: list[bytes]) -> None:
        self.pieces = pieces

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for piece in self.pieces:
            yield piece


@pytest.mark.parametrize("end", [b"\n", b"\r\n", b"\r"])
async def test_sse_lines_cut_anywhere_between_chunks_come_back_whole(end: bytes) -> None:
    """Every line ending SSE allows, and chunks cut inside a line, inside a line ending and
    inside a multi-byte character."""
    events = [{"choices": [{"delta": {"content": word}}]} for word in ("Grüß ", "dich ", "😀")]
    events.append({"choices": [{"delta": {}, "finish_reason": "stop"}]})
    body = b"".join(
        b": a comment" + end + b"data: " + json.dumps(e, ensure_ascii=False).encode() + end * 2
        for e in events
    )
    body += b"data: [DONE]"  # and the last line without its line end
    pieces = [body[i : i + 7] for i in range(0, len(body), 7)]

    def answer(request: httpx.Request) -> httpx.Response:
        headers = {"content-type": "text/event-stream"}
        return httpx.Response(200, headers=headers, stream=_Pieces(pieces))

    model = ModelClient(
        LLMSettings(base_url="http://model.test/v1"), transport=httpx.MockTransport(answer)
    )
    try:
        deltas, completion = await collect(model)
    finally:
        await model.aclose()
    assert completion.content == "Grüß dich 😀"
    assert [d.text for d in deltas if d.kind == "content"] == ["Grüß ", "dich ", "😀"]
    assert completion.finish_reason == "stop"
