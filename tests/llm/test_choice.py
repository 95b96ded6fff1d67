"""Filling in the model server and model the owner left unset."""

from __future__ import annotations

from pathlib import Path

import pytest

from spyglass.llm.choice import ModelFinder
from spyglass.llm.client import Completion, ModelClient, ModelUnavailable
from spyglass.llm.discovery import LocalServer
from spyglass.settings import LLMSettings
from tests.llm.test_discovery import closed_port
from tests.support.fake_model import FakeModel, text


def ollama(server: FakeModel) -> LocalServer:
    return LocalServer("Ollama", server.address[1], ollama=True)


async def answer(client: ModelClient) -> str:
    async for item in client.stream([{"role": "user", "content": "hi"}]):
        if isinstance(item, Completion):
            return item.content
    raise AssertionError("no completion")


async def test_one_model_on_one_server_is_used_by_name_and_said() -> None:
    settings = LLMSettings.model_construct()
    with FakeModel(models=["qwen3:8b"], ollama=True) as server:
        finder = ModelFinder(settings, servers=[ollama(server), LocalServer("x", closed_port())])
        message = await finder.find()
        assert message == f"using qwen3:8b on Ollama at 127.0.0.1:{server.address[1]}"
        client = ModelClient(settings, finder=finder)
        server.script(text("hello"))
        assert await answer(client) == "hello"
        await client.aclose()
    assert server.requests[0]["model"] == "qwen3:8b"
    assert finder.as_dict()["model"] == "qwen3:8b"


async def test_several_models_ask_the_owner_to_pick_and_the_pick_is_remembered(
    tmp_path: Path,
) -> None:
    memory = tmp_path / "model.json"
    with FakeModel(models=["a", "b"]) as first, FakeModel(models=["c"], ollama=True) as second:
        servers = [LocalServer("LM Studio", first.address[1]), ollama(second)]
        finder = ModelFinder(LLMSettings.model_construct(), servers=servers, memory=memory)
        message = await finder.find()
        assert finder.status == "choose"
        assert "a on LM Studio" in message and "c on Ollama" in message and "Pick one" in message
        client = ModelClient(finder.settings, finder=finder)
        with pytest.raises(ModelUnavailable, match="found several models"):
            await answer(client)
        with pytest.raises(ValueError, match="no model 'a' was found"):
            finder.choose(second.base_url, "a")
        finder.choose(second.base_url, "c")
        second.script(text("from c"))
        assert await answer(client) == "from c"
        await client.aclose()
        # A service started later finds the same servers and takes the remembered pick.
        later = ModelFinder(LLMSettings.model_construct(), servers=servers, memory=memory)
        assert (await later.find()).startswith("using c on Ollama")
    assert second.requests[0]["model"] == "c" and first.requests == []


async def test_no_server_says_so_with_the_two_settings_to_set() -> None:
    finder = ModelFinder(LLMSettings.model_construct(), servers=[LocalServer("x", closed_port())])
    message = await finder.find()
    assert finder.status == "none" and "no model server found on this machine" in message
    assert "llm.base_url" in message and "llm.model" in message
    with pytest.raises(ModelUnavailable, match="no model server found"):
        await ModelClient(finder.settings, finder=finder).stream([]).__anext__()


async def test_a_server_that_was_not_up_at_start_is_found_by_the_first_turn() -> None:
    with FakeModel(models=["late"]) as server:
        port = server.address[1]
        finder = ModelFinder(LLMSettings.model_construct(), servers=[LocalServer("Jan", port)])
        server.models = None  # not serving yet
        assert finder.status == "none" and (await finder.find()).startswith("no model server")
        server.models = ["late"]
        client = ModelClient(finder.settings, finder=finder)
        server.script(text("up now"))
        assert await answer(client) == "up now"
        await client.aclose()
    assert server.requests[0]["model"] == "late"


async def test_a_set_server_without_a_model_uses_the_one_model_it_lists() -> None:
    with FakeModel(models=["only"]) as server:
        settings = LLMSettings(base_url=server.base_url)
        finder = ModelFinder(settings, servers=[])
        assert (await finder.find()).startswith("using only")
        assert settings.model == "only" and settings.base_url == server.base_url


async def test_a_set_server_without_a_model_list_is_asked_as_before() -> None:
    with FakeModel() as server:
        settings = LLMSettings(base_url=server.base_url)
        finder = ModelFinder(settings, servers=[])
        client = ModelClient(settings, finder=finder)
        server.script(text("as before"))
        assert await answer(client) == "as before"
        await client.aclose()
    assert "model" not in server.requests[0]


async def test_what_the_owner_set_is_used_without_looking() -> None:
    settings = LLMSettings(base_url="http://127.0.0.1:9/v1", model="mine")
    finder = ModelFinder(settings, servers=[LocalServer("x", closed_port())])
    assert finder.settled
    await finder.ensure()
    assert settings.model == "mine" and finder.found == []


async def test_a_set_server_that_is_down_is_asked_again_by_the_turn_and_its_error_names_it() -> (
    None
):
    settings = LLMSettings(base_url=f"http://127.0.0.1:{closed_port()}/v1")
    finder = ModelFinder(settings, servers=[])
    assert "does not answer yet" in await finder.find()
    client = ModelClient(settings, finder=finder)
    with pytest.raises(ModelUnavailable, match="refused the connection"):
        await answer(client)
    await client.aclose()
