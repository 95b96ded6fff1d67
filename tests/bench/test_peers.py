"""The service benchmark's cheap peers speak the same wire protocol as the test peers."""

from __future__ import annotations

import httpx
from bench.peers import PeerServer, model_answer, searxng

from spyglass.llm.client import Completion, ModelClient
from spyglass.settings import LLMSettings
from tests.support.fake_model import Reply, text, tool_call

SEARCH = tool_call("web_search", {"query": "tides"})
ANSWER = text("High tide at noon.", reasoning="looked it up")


def choose(body: dict) -> Reply:
    return SEARCH if body.get("tools") else ANSWER


async def answer(model: ModelClient, tools: list | None) -> Completion:
    async for item in model.stream([{"role": "user", "content": "tides?"}], tools):
        if isinstance(item, Completion):
            return item
    raise AssertionError("no completion")


async def test_the_model_client_reads_calls_and_answers_from_the_cheap_model_peer() -> None:
    tools = [{"type": "function", "function": {"name": "web_search", "parameters": {}}}]
    async with PeerServer(model_answer(choose)) as peer:
        model = ModelClient(LLMSettings(base_url=f"{peer.url}/v1"))
        try:
            first = await answer(model, tools)
            second = await answer(model, None)
            third = await answer(model, tools)
        finally:
            await model.aclose()
    assert [(c.name, c.arguments) for c in first.tool_calls] == [("web_search", {"query": "tides"})]
    assert (second.content, second.reasoning) == ("High tide at noon.", "looked it up")
    assert third.tool_calls == first.tool_calls


async def test_the_provider_peer_answers_searxngs_json_and_only_at_its_path() -> None:
    async with (
        PeerServer(searxng) as peer,
        httpx.AsyncClient(base_url=peer.url, trust_env=False) as http,
    ):
        found = await http.get("/search", params={"q": "otters", "format": "json"})
        again = await http.get("/search", params={"q": "seals", "format": "json"})
        missing = await http.get("/elsewhere")
    assert found.status_code == 200 and found.json()["query"] == "otters"
    assert again.json()["query"] == "seals" and len(again.json()["results"]) == 2
    assert missing.status_code == 404
