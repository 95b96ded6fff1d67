"""The model picker in the header: offered when several models were found on this machine."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from spyglass.llm.discovery import LocalServer
from spyglass.paths import Paths
from tests.console.harness import ConsoleServer
from tests.support.fake_model import FakeModel, text
from tests.support.fetch_peers import Peer

pytestmark = pytest.mark.browser


@pytest.fixture
def second() -> Iterator[FakeModel]:
    with FakeModel(models=["qwen3:8b"], ollama=True) as fake:
        yield fake


@pytest.fixture
def server(
    paths: Paths, model: FakeModel, second: FakeModel, searxng: Peer
) -> Iterator[ConsoleServer]:
    # Nothing set about the model: two local servers answer, one model each.
    model.models = ["llama-3.2-3b"]
    servers = [
        LocalServer("LM Studio", model.address[1]),
        LocalServer("Ollama", second.address[1], ollama=True),
    ]
    overrides = {"search.providers": "searxng", "search.searxng.base_url": searxng.url}
    with ConsoleServer(paths, overrides, web_access=True, servers=servers) as running:
        yield running


def test_with_two_servers_the_owner_picks_the_model_and_the_next_turn_uses_it(
    page: Page, model: FakeModel, second: FakeModel, server: ConsoleServer
) -> None:
    picker = page.get_by_label("Model")
    expect(picker).to_be_visible()
    expect(picker.locator("option")).to_have_text(
        [
            "Pick a model…",
            f"llama-3.2-3b — LM Studio (127.0.0.1:{model.address[1]})",
            f"qwen3:8b — Ollama (127.0.0.1:{second.address[1]})",
        ]
    )
    picker.select_option(label=f"qwen3:8b — Ollama (127.0.0.1:{second.address[1]})")
    expect(picker.locator("option")).to_have_count(2)  # picked: the prompt is gone
    second.script(text("Hello from qwen."))
    page.fill("#composer-input", "hi")
    page.keyboard.press("Enter")
    expect(page.locator(".answer").last).to_have_text("Hello from qwen.")
    assert second.requests[-1]["model"] == "qwen3:8b" and model.requests == []
    assert "qwen3:8b" in server.runtime.paths.model_choice_file.read_text()


class TestOneModelFound:
    @pytest.fixture
    def second(self) -> Iterator[FakeModel]:
        with FakeModel() as fake:  # answers, but lists no model
            yield fake

    def test_the_picker_stays_hidden_and_the_one_model_answers(
        self, page: Page, model: FakeModel
    ) -> None:
        expect(page.locator("#model-picker")).to_be_hidden()
        model.script(text("Hello from llama."))
        page.fill("#composer-input", "hi")
        page.keyboard.press("Enter")
        expect(page.locator(".answer").last).to_have_text("Hello from llama.")
        assert model.requests[-1]["model"] == "llama-3.2-3b"
