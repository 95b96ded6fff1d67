"""Finding model servers on loopback: real fake servers on free ports stand for the usual ones."""

from __future__ import annotations

import socket

from spyglass.llm.discovery import (
    LOCAL_SERVERS,
    FoundModel,
    LocalServer,
    discover,
    list_models,
)
from tests.support.fake_model import FakeModel


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_the_usual_servers_are_asked_on_their_default_ports() -> None:
    ports = {server.name: server.port for server in LOCAL_SERVERS}
    assert ports == {
        "llama-server": 8080,
        "Ollama": 11434,
        "LM Studio": 1234,
        "vLLM": 8000,
        "Jan": 1337,
        "KoboldCpp": 5001,
        "text-generation-webui": 5000,
        "SGLang": 30000,
    }


async def test_only_servers_that_answer_a_model_list_are_found_in_the_order_asked() -> None:
    with FakeModel(models=["a", "b"]) as first, FakeModel(models=["c"]) as second:
        found = await discover(
            [
                LocalServer("vLLM", second.address[1]),
                LocalServer("nothing", closed_port()),
                LocalServer("LM Studio", first.address[1]),
            ]
        )
    assert [(s.name, [m.name for m in s.models]) for s in found] == [
        ("vLLM", ["c"]),
        ("LM Studio", ["a", "b"]),
    ]
    assert found[0].base_url == f"http://127.0.0.1:{second.address[1]}/v1"
    assert found[0].address == f"127.0.0.1:{second.address[1]}"


async def test_a_server_without_a_model_list_is_not_taken_for_a_model_server() -> None:
    with FakeModel() as server:
        assert await discover([LocalServer("llama-server", server.address[1])]) == []
        assert await list_models(server.base_url) is None


async def test_ollama_lists_its_models_and_says_which_take_tools_when_asked() -> None:
    with FakeModel(models=["qwen3:8b", "gemma3:270m"], ollama=True, tools={"qwen3:8b": True}) as o:
        plain = await discover([LocalServer("Ollama", o.address[1], ollama=True)])
        detailed = await discover([LocalServer("Ollama", o.address[1], ollama=True)], details=True)
    assert plain[0].models == (FoundModel("qwen3:8b"), FoundModel("gemma3:270m"))
    assert detailed[0].models == (FoundModel("qwen3:8b", True), FoundModel("gemma3:270m", False))
    assert detailed[0].as_dict()["models"][0] == {"name": "qwen3:8b", "tools": True}


async def test_a_server_that_is_slow_to_answer_is_given_up_on() -> None:
    # A listening socket that never answers: the probe's deadline, not the server, ends it.
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(1)
        port = int(sock.getsockname()[1])
        assert await discover([LocalServer("silent", port)], timeout=0.2) == []
