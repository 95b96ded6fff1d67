"""The README's pictures of the console, taken by the browser tests' own fixtures.

Each test drives the console to a state the README shows and saves it under
artifacts/screenshots/readme-*.png; ``python scripts/screenshots.py`` runs them and copies the
pictures to docs/, so the README shows the console as it is.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.console.harness import ConsoleServer, screenshot, searxng_route
from tests.console.test_citations import RESULTS
from tests.support.fake_model import FakeModel, text, tool_call
from tests.support.fetch_peers import Peer

pytestmark = pytest.mark.browser

QUESTION = "How do sea otters use tools?"
ANSWER = (
    "Sea otters keep a favourite rock in a pouch of loose skin under each foreleg [2]. "
    "Floating on their backs, they hammer shellfish against it until the shell cracks [2]."
)


@pytest.fixture
def searxng() -> Iterator[Peer]:
    with Peer({"/search": searxng_route(RESULTS)}) as peer:
        yield peer


def ask(page: Page, model: FakeModel) -> None:
    model.script(tool_call("web_search", {"query": "sea otters use tools"}), text(ANSWER))
    page.fill("#composer-input", QUESTION)
    page.keyboard.press("Enter")
    expect(page.locator(".confirm-card")).to_be_visible()


def test_the_card_and_the_cited_answer_on_a_desktop(page: Page, model: FakeModel) -> None:
    ask(page, model)
    screenshot(page, "readme-console-confirm")
    page.get_by_role("button", name="Approve: Search SearXNG for").click()
    expect(page.locator(".answer a.cite").first).to_be_visible()
    page.locator(".sources-more summary").click()
    screenshot(page, "readme-console-results")


def test_the_card_on_a_phone_in_the_dark_theme(
    browser: Browser, server: ConsoleServer, model: FakeModel
) -> None:
    context = browser.new_context(viewport={"width": 360, "height": 740}, color_scheme="dark")
    try:
        tab = context.new_page()
        tab.goto(server.login_url())
        tab.wait_for_selector("#composer-input:not([disabled])")
        ask(tab, model)
        screenshot(tab, "readme-console-phone-dark")
    finally:
        context.close()
