"""``spyglass doctor``: each piece of the set-up broken in turn is named, with what to do."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from spyglass.cli.doctor import Check, examine
from spyglass.llm.discovery import LocalServer
from spyglass.paths import Paths
from spyglass.runtime import build_runtime
from tests.cli.support import run
from tests.llm.test_discovery import closed_port
from tests.support.fake_model import FakeModel, refuses_tools, text
from tests.support.loopback import LoopbackServer, QuietHandler


class Answers(QuietHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()


@pytest.fixture
def model() -> Iterator[FakeModel]:
    with FakeModel(models=["qwen3:8b"], ollama=True) as fake:
        fake.default = lambda body: text("OK")
        yield fake


@pytest.fixture
def searxng() -> Iterator[LoopbackServer]:
    with LoopbackServer(Answers) as server:
        yield server


def settings_for(model: FakeModel, searxng: LoopbackServer) -> dict[str, object]:
    return {
        "search.providers": "searxng",
        "search.searxng.base_url": searxng.url,
        "fetch.render": "auto",
        "fetch.browser_path": "/bin/sh",  # an executable file stands for the browser
    }


async def checks(
    paths: Paths, overrides: dict[str, object], servers: list[LocalServer]
) -> dict[str, Check]:
    runtime = build_runtime(paths, overrides=overrides)
    return {check.name: check for check in await examine(runtime, servers=servers)}


def broken(found: dict[str, Check]) -> dict[str, str]:
    return {name: check.fix for name, check in found.items() if check.ok is False}


async def test_a_working_set_up_has_nothing_broken(
    paths: Paths, model: FakeModel, searxng: LoopbackServer
) -> None:
    servers = [LocalServer("Ollama", model.address[1], ollama=True)]
    found = await checks(paths, settings_for(model, searxng), servers)
    assert broken(found) == {}
    assert found["model server"].detail == f"qwen3:8b at {model.base_url} answers"
    assert found["tool support"].ok is True
    assert model.requests[0]["tools"][0]["function"]["name"] == "spyglass_probe"


async def test_no_model_server_is_named_with_the_settings_to_set(
    paths: Paths, model: FakeModel, searxng: LoopbackServer
) -> None:
    found = await checks(
        paths, settings_for(model, searxng), [LocalServer("Ollama", closed_port(), ollama=True)]
    )
    assert set(broken(found)) == {"model server"}
    assert "no model server found" in found["model server"].detail
    assert "llm.base_url" in found["model server"].fix
    assert found["tool support"].ok is None


async def test_a_set_model_server_that_is_down_is_named(
    paths: Paths, model: FakeModel, searxng: LoopbackServer
) -> None:
    overrides = {
        **settings_for(model, searxng),
        "llm.base_url": f"http://127.0.0.1:{closed_port()}/v1",
        "llm.model": "m",
    }
    found = await checks(paths, overrides, [])
    assert set(broken(found)) == {"model server"}
    assert "refused the connection" in found["model server"].detail


async def test_a_model_without_tools_is_named(
    paths: Paths, model: FakeModel, searxng: LoopbackServer
) -> None:
    model.default = lambda body: refuses_tools("ollama") if body.get("tools") else text("OK")
    servers = [LocalServer("Ollama", model.address[1], ollama=True)]
    found = await checks(paths, settings_for(model, searxng), servers)
    assert set(broken(found)) == {"tool support"}
    assert "tool support" in found["tool support"].fix


async def test_an_unreachable_search_provider_is_named(
    paths: Paths, model: FakeModel, searxng: LoopbackServer
) -> None:
    overrides = {
        **settings_for(model, searxng),
        "search.searxng.base_url": f"http://127.0.0.1:{closed_port()}",
    }
    servers = [LocalServer("Ollama", model.address[1], ollama=True)]
    found = await checks(paths, overrides, servers)
    assert set(broken(found)) == {"search provider searxng"}


async def test_a_missing_browser_is_named_with_how_to_get_one(
    paths: Paths, model: FakeModel, searxng: LoopbackServer, tmp_path: Path
) -> None:
    overrides = {**settings_for(model, searxng), "fetch.browser_path": str(tmp_path / "none")}
    servers = [LocalServer("Ollama", model.address[1], ollama=True)]
    found = await checks(paths, overrides, servers)
    assert set(broken(found)) == {"rendering browser"}
    assert "fetch.browser_path" in found["rendering browser"].fix


async def test_stores_that_cannot_be_reached_are_named(
    paths: Paths, model: FakeModel, searxng: LoopbackServer
) -> None:
    overrides = {
        **settings_for(model, searxng),
        "state.backend": "shared",
        "state.redis_url": f"redis://127.0.0.1:{closed_port()}/0",
        "state.database_url": f"postgresql://spyglass@127.0.0.1:{closed_port()}/spyglass",
    }
    servers = [LocalServer("Ollama", model.address[1], ollama=True)]
    found = await checks(paths, overrides, servers)
    assert set(broken(found)) == {"state stores"}
    assert "state.backend = embedded" in found["state stores"].fix


async def test_a_state_folder_open_to_others_is_named_with_the_chmod(
    paths: Paths, model: FakeModel, searxng: LoopbackServer
) -> None:
    servers = [LocalServer("Ollama", model.address[1], ollama=True)]
    runtime = build_runtime(paths, overrides=settings_for(model, searxng))
    paths.home.chmod(0o755)  # after start-up, which tightens it
    found = {check.name: check for check in await examine(runtime, servers=servers)}
    assert set(broken(found)) == {"state folder"}
    assert found["state folder"].fix == f"chmod 700 {paths.home}"


def test_the_command_exits_1_and_prints_json_naming_what_is_broken(
    home: Path, searxng: LoopbackServer
) -> None:
    env = {
        "SPYGLASS_LLM__BASE_URL": f"http://127.0.0.1:{closed_port()}/v1",
        "SPYGLASS_LLM__MODEL": "m",
        "SPYGLASS_SEARCH__PROVIDERS": "searxng",
        "SPYGLASS_SEARCH__SEARXNG__BASE_URL": searxng.url,
    }
    result = run("doctor", "--json", home=home, env=env)
    assert result.code == 1, result.stderr
    report = json.loads(result.stdout)
    assert report["ok"] is False
    states = {check["name"]: check["ok"] for check in report["checks"]}
    assert states["model server"] is False and states["search provider searxng"] is True
    plain = run("doctor", home=home, env=env)
    assert plain.code == 1 and "BROKEN   model server" in plain.stdout and "→" in plain.stdout
