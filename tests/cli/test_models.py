"""``spyglass models``: what was found on this machine, with tool support where known."""

from __future__ import annotations

import json
from pathlib import Path

from spyglass.cli.models import find
from spyglass.llm.discovery import LocalServer
from spyglass.paths import Paths
from spyglass.settings import LLMSettings
from tests.cli.support import run
from tests.support.fake_model import FakeModel


async def test_every_server_and_model_found_is_listed_with_its_tool_support(paths: Paths) -> None:
    with (
        FakeModel(models=["qwen3:8b", "gemma3:270m"], ollama=True, tools={"qwen3:8b": True}) as o,
        FakeModel(models=["llama-3.2-3b"]) as lm,
    ):
        servers = [
            LocalServer("Ollama", o.address[1], ollama=True),
            LocalServer("LM Studio", lm.address[1]),
        ]
        found = await find(LLMSettings.model_construct(), paths, servers=servers)
    assert found["status"] == "choose"
    assert found["servers"] == [
        {
            "server": "Ollama",
            "base_url": o.base_url,
            "models": [
                {"name": "qwen3:8b", "tools": True},
                {"name": "gemma3:270m", "tools": False},
            ],
        },
        {
            "server": "LM Studio",
            "base_url": lm.base_url,
            "models": [{"name": "llama-3.2-3b", "tools": None}],
        },
    ]


def test_the_command_lists_the_set_servers_models_and_the_one_in_use(home: Path) -> None:
    with FakeModel(models=["a", "b"]) as server:
        env = {"SPYGLASS_LLM__BASE_URL": server.base_url, "SPYGLASS_LLM__MODEL": "b"}
        listed = run("models", "--json", home=home, env=env)
        table = run("models", home=home, env=env)
    assert listed.code == 0, listed.stderr
    found = json.loads(listed.stdout)
    assert found["status"] == "configured" and found["model"] == "b"
    assert [m["name"] for m in found["servers"][0]["models"]] == ["a", "b"]
    assert table.code == 0
    in_use = [line for line in table.stdout.splitlines() if "in use" in line]
    assert len(in_use) == 1 and " b " in in_use[0]
