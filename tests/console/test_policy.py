"""The web-access switch: the real state at sign-in, immediate writes, visible revert."""

from __future__ import annotations

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from spyglass.core.policy import WEB_ACCESS, WEB_FETCH, WEB_SEARCH
from tests.console.harness import ConsoleServer, screenshot
from tests.console.models import offered_tools, reactive
from tests.support.fake_model import FakeModel, tool_call
from tests.support.fetch_peers import Peer

pytestmark = pytest.mark.browser


@pytest.fixture(autouse=True)
def _model_reacts(model: FakeModel) -> None:
    model.default = reactive


class TestStartingWithWebAccessOff:
    @pytest.fixture
    def web_access(self) -> bool:
        return False

    def test_the_switch_shows_off_with_a_hint_on_how_to_turn_it_on(self, page: Page) -> None:
        switch = page.get_by_role("switch", name="Web access")
        expect(switch).to_have_attribute("aria-checked", "false")
        hint = page.locator("#policy-hint")
        expect(hint).to_be_visible()
        expect(hint).to_contain_text("cannot search")
        expect(hint).to_contain_text("Turn on Web access")
        screenshot(page, "web-access-off")

    def test_turning_it_on_writes_the_policy_file_at_once(
        self, page: Page, server: ConsoleServer
    ) -> None:
        page.get_by_role("switch", name="Web access").click()
        expect(page.get_by_role("switch", name="Web access")).to_have_attribute(
            "aria-checked", "true"
        )
        expect(page.locator("#policy-hint")).to_be_hidden()
        expect(page.get_by_role("switch", name="Web access")).to_be_enabled()
        assert server.runtime.policy.read()[WEB_ACCESS] is True


def test_turning_it_off_means_the_model_is_offered_no_web_tools_and_says_so(
    page: Page, model: FakeModel, server: ConsoleServer
) -> None:
    switch = page.get_by_role("switch", name="Web access")
    expect(switch).to_have_attribute("aria-checked", "true")
    switch.click()
    expect(switch).to_have_attribute("aria-checked", "false")
    expect(switch).to_be_enabled()  # the write has finished
    assert server.runtime.policy.read()[WEB_ACCESS] is False
    page.fill("#composer-input", "Search the news for otters")
    page.keyboard.press("Enter")
    expect(page.locator(".answer")).to_have_text(
        "Web access is off, so I cannot search the web for this."
    )
    offered = offered_tools(model.requests[-1])
    assert "web_search" not in offered
    assert "web_fetch" not in offered


def test_a_search_proposed_while_off_is_refused_and_shown_as_such(
    page: Page, model: FakeModel, server: ConsoleServer, searxng: Peer
) -> None:
    page.get_by_role("switch", name="Web access").click()
    expect(page.locator("#policy-hint")).to_be_visible()
    expect(page.get_by_role("switch", name="Web access")).to_be_enabled()
    # A model that calls a tool it was not offered still meets the policy check.
    model.script(tool_call("web_search", {"query": "otters"}))
    page.fill("#composer-input", "Search anyway")
    page.keyboard.press("Enter")
    refused = page.locator(".tool-rejected")
    expect(refused.locator(".tool-label")).to_have_text("search refused:")
    expect(page.locator(".confirm-card")).to_have_count(0)
    expect(page.locator(".answer")).to_contain_text("I could not search the web")
    assert searxng.requests["/search"] == 0


def test_a_failed_write_puts_the_switch_back_and_says_why(
    page: Page, server: ConsoleServer
) -> None:
    switch = page.get_by_role("switch", name="Web access")
    expect(switch).to_have_attribute("aria-checked", "true")
    # A folder where the policy file should be: the service cannot replace it.
    policy_file = server.runtime.paths.policy_file
    policy_file.unlink()
    policy_file.mkdir()
    switch.click()
    expect(page.locator("#toast")).to_contain_text("Web access was not changed")
    expect(switch).to_have_attribute("aria-checked", "true")
    expect(switch).to_be_enabled()


def test_a_broken_policy_file_is_named_in_the_header_and_switching_rewrites_it(
    context: BrowserContext, server: ConsoleServer
) -> None:
    server.runtime.paths.policy_file.write_text("{broken")
    tab = context.new_page()
    tab.goto(server.login_url())
    tab.wait_for_selector("#composer-input:not([disabled])")
    problem = tab.locator("#policy-problem")
    expect(problem).to_be_visible()
    expect(problem).to_contain_text("cannot be read")
    expect(problem).to_contain_text(str(server.runtime.paths.policy_file))
    expect(tab.locator("#policy-hint")).to_be_hidden()
    switch = tab.get_by_role("switch", name="Web access")
    expect(switch).to_have_attribute("aria-checked", "false")
    switch.click()
    expect(switch).to_have_attribute("aria-checked", "true")
    expect(problem).to_be_hidden()
    assert server.runtime.policy.read()[WEB_ACCESS] is True


def test_switching_page_reads_off_keeps_search_and_the_model_is_not_offered_fetch(
    page: Page, model: FakeModel, server: ConsoleServer
) -> None:
    fetch = page.get_by_role("switch", name="Read pages")
    search = page.get_by_role("switch", name="Search")
    expect(fetch).to_have_attribute("aria-checked", "true")
    expect(fetch).to_be_enabled()
    fetch.click()
    expect(fetch).to_have_attribute("aria-checked", "false")
    expect(fetch).to_be_enabled()  # the write has finished
    assert server.runtime.policy.read() == {
        WEB_ACCESS: True,
        WEB_SEARCH: True,
        WEB_FETCH: False,
    }
    expect(search).to_have_attribute("aria-checked", "true")
    page.fill("#composer-input", "What does this page say?")
    page.keyboard.press("Enter")
    expect(page.locator(".answer")).to_have_text("I can answer that without searching.")
    offered = offered_tools(model.requests[-1])
    assert "web_search" in offered and "web_fetch" not in offered
    screenshot(page, "fetch-switched-off")


class TestCapabilitySwitchesWhileWebAccessIsOff:
    @pytest.fixture
    def web_access(self) -> bool:
        return False

    def test_they_keep_their_value_but_cannot_be_used_until_web_access_is_on(
        self, page: Page, server: ConsoleServer
    ) -> None:
        search = page.get_by_role("switch", name="Search")
        expect(search).to_have_attribute("aria-checked", "true")
        expect(search).to_be_disabled()
        page.get_by_role("switch", name="Web access").click()
        expect(search).to_be_enabled()
        search.click()
        expect(search).to_have_attribute("aria-checked", "false")
        expect(search).to_be_enabled()
        assert server.runtime.policy.read()[WEB_SEARCH] is False


def test_the_owner_chooses_beside_a_switch_that_only_flagged_calls_ask(
    page: Page, server: ConsoleServer
) -> None:
    mode = page.get_by_label("When a search asks for approval").first
    expect(mode).to_have_value("each")
    expect(mode).to_be_enabled()
    mode.select_option("flagged")
    expect(mode).to_be_enabled()  # the write has finished
    assert server.runtime.policy.approvals() == {"search": "flagged"}
    page.reload()
    expect(page.get_by_label("When a search asks for approval").first).to_have_value("flagged")
    expect(page.get_by_label("When a page read asks for approval").first).to_have_value("each")
