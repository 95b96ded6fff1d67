"""GET|POST /api/v1/models: the models found on this machine, and the owner's pick."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx

from spyglass.llm.choice import ModelFinder
from spyglass.llm.discovery import LocalServer
from spyglass.paths import Paths
from spyglass.runtime import Runtime, build_runtime
from spyglass.service.app import create_app
from tests.support.fake_model import FakeModel, text
from tests.support.service import BASE_URL, PORT
from tests.support.web import fixture_registry


async def served(runtime: Runtime, servers: list[LocalServer]) -> AsyncIterator[httpx.AsyncClient]:
    finder = ModelFinder(
        runtime.settings.llm, servers=servers, memory=runtime.paths.model_choice_file
    )
    app = create_app(runtime, port=PORT, finder=finder)
    token = app.state.spyglass.auth.token
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app),
        base_url=BASE_URL,
        headers={"Authorization": f"Bearer {token}"},
    ) as http:
        yield http
    await app.state.spyglass.aclose()


def bare_runtime(paths: Paths) -> Runtime:
    """A runtime whose owner set nothing about the model."""
    return build_runtime(paths, registry=fixture_registry())


async def ask(http: httpx.AsyncClient, question: str) -> str:
    response = await http.post("/api/v1/conversation/message", json={"text": question})
    return response.text


async def test_two_servers_are_offered_and_the_owners_pick_answers_the_next_turn(
    paths: Paths,
) -> None:
    with FakeModel(models=["a"]) as first, FakeModel(models=["b"], ollama=True) as second:
        servers = [
            LocalServer("LM Studio", first.address[1]),
            LocalServer("Ollama", second.address[1], ollama=True),
        ]
        async for http in served(bare_runtime(paths), servers):
            listed = (await http.get("/api/v1/models")).json()
            assert listed["status"] == "choose" and listed["model"] is None
            assert [(s["server"], s["models"][0]["name"]) for s in listed["servers"]] == [
                ("LM Studio", "a"),
                ("Ollama", "b"),
            ]
            assert "found several models" in await ask(http, "hello?")
            missing = await http.post(
                "/api/v1/models", json={"base_url": first.base_url, "model": "b"}
            )
            assert missing.status_code == 404
            picked = await http.post(
                "/api/v1/models", json={"base_url": second.base_url, "model": "b"}
            )
            assert picked.json()["status"] == "using" and picked.json()["model"] == "b"
            second.script(text("hello from b"))
            assert "hello from b" in await ask(http, "hello?")
    assert second.requests[0]["model"] == "b" and first.requests == []
    assert "b" in paths.model_choice_file.read_text()


async def test_the_models_the_owner_set_are_reported_as_configured(
    client: httpx.AsyncClient, fake_model: FakeModel
) -> None:
    listed = (await client.get("/api/v1/models")).json()
    assert listed["status"] == "configured"
    assert listed["base_url"] == fake_model.base_url and listed["model"] == "fake"
    refused = await client.post(
        "/api/v1/models", json={"base_url": fake_model.base_url, "model": "other"}
    )
    assert refused.status_code == 409
