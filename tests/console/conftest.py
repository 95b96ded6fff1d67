"""Fixtures for the console's browser tests: Debian's Chromium driven by Playwright, the
real service, the scripted fake model and a SearXNG-shaped search provider on loopback."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect, sync_playwright

from spyglass.paths import Paths
from tests.console.harness import ConsoleServer, SearchResult, searxng_route
from tests.support.fake_model import FakeModel
from tests.support.fetch_peers import Peer

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

#: What the fake SearXNG answers unless a test says otherwise.
DEFAULT_RESULTS = [
    SearchResult(
        "Sea otter - Wikipedia",
        "https://en.wikipedia.org/wiki/Sea_otter",
        "The sea otter is a marine mammal native to the coasts of the northern Pacific Ocean.",
    ),
    SearchResult(
        "How sea otters use tools",
        "https://www.montereybayaquarium.org/stories/sea-otter-tools",
        "Sea otters crack open shellfish with rocks they keep in a pouch under their forelegs.",
    ),
]


@pytest.fixture(scope="package")
def browser() -> Iterator[Browser]:
    # Package scope: Playwright's sync API keeps an event loop running on this thread while
    # it is started, so it must be stopped before the suite's asyncio tests run.
    if not CHROMIUM.exists():
        pytest.skip(
            "Debian's Chromium is not installed at /usr/bin/chromium "
            "(install it with `apt-get install -y chromium`; .ci/run does)"
        )
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def model() -> Iterator[FakeModel]:
    with FakeModel() as fake:
        yield fake


@pytest.fixture
def searxng() -> Iterator[Peer]:
    with Peer({"/search": searxng_route(DEFAULT_RESULTS)}) as peer:
        yield peer


@pytest.fixture
def web_access() -> bool:
    """The owner's switch when the service starts; a test overrides it to start with it off."""
    return True


@pytest.fixture
def server(
    paths: Paths, model: FakeModel, searxng: Peer, web_access: bool
) -> Iterator[ConsoleServer]:
    overrides = {
        "llm.base_url": model.base_url,
        "llm.model": "fake",
        "search.providers": "searxng",
        "search.searxng.base_url": searxng.url,
    }
    with ConsoleServer(paths, overrides, web_access=web_access) as running:
        yield running


@pytest.fixture
def context(browser: Browser) -> Iterator[BrowserContext]:
    """A fresh browser profile (no cookies, no storage) per test, desktop size."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 860})
    ctx.set_default_timeout(10_000)
    yield ctx
    ctx.close()


@pytest.fixture
def page(context: BrowserContext, server: ConsoleServer) -> Iterator[Page]:
    """A signed-in console: the one-time link was opened, the chat is showing."""
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda error: errors.append(str(error)))
    # The page's own code must live within its Content-Security-Policy.
    tab.on(
        "console",
        lambda message: (
            errors.append(message.text) if "Content Security Policy" in message.text else None
        ),
    )
    tab.goto(server.login_url())
    tab.wait_for_selector("#composer-input:not([disabled])")
    # The switches show the session's guess until the policy read is answered; a test that
    # changes the policy file before then would race that read.
    expect(tab.locator("[role=switch][aria-busy=true]")).to_have_count(0)
    yield tab
    assert errors == [], f"the page raised JavaScript errors or CSP violations: {errors}"
