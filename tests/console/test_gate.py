"""Signing in: the one-time link, and what the page says without a session."""

from __future__ import annotations

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from tests.console.harness import ConsoleServer, screenshot
from tests.support.fake_model import FakeModel, tool_call
from tests.support.fetch_peers import Peer

pytestmark = pytest.mark.browser


def test_the_one_time_link_signs_in_and_lands_on_the_chat(
    context: BrowserContext, server: ConsoleServer
) -> None:
    tab = context.new_page()
    tab.goto(server.login_url())
    assert tab.url == f"{server.base_url}/"
    expect(tab.get_by_role("textbox", name="Message")).to_be_enabled()
    expect(tab.locator("#gate")).to_be_hidden()
    cookie = next(c for c in context.cookies() if c["name"] == "spyglass_session")
    assert cookie["httpOnly"] is True
    assert cookie["sameSite"] == "Strict"


def test_without_a_session_the_page_explains_how_to_sign_in(
    context: BrowserContext, server: ConsoleServer
) -> None:
    tab = context.new_page()
    tab.goto(f"{server.base_url}/")
    gate = tab.locator("#gate")
    expect(gate.get_by_role("heading")).to_have_text("Sign in to Spyglass")
    expect(gate).to_contain_text("spyglass serve")
    expect(tab.locator("#app")).to_be_hidden()
    screenshot(tab, "sign-in")


def test_a_used_link_is_refused_with_a_page_saying_how_to_get_a_new_one(
    context: BrowserContext, server: ConsoleServer
) -> None:
    link = server.login_url()
    first = context.new_page()
    first.goto(link)
    expect(first.get_by_role("textbox", name="Message")).to_be_enabled()
    context.clear_cookies()
    second = context.new_page()
    response = second.goto(link)
    assert response is not None
    assert response.status == 401
    expect(second.locator("body")).to_contain_text("already used or has expired")
    expect(second.get_by_role("textbox", name="Message")).to_have_count(0)


def test_a_session_that_ends_while_the_page_is_open_shows_the_expired_state(
    page: Page, context: BrowserContext
) -> None:
    context.clear_cookies()
    page.fill("#composer-input", "Are you there?")
    page.keyboard.press("Enter")
    gate = page.locator("#gate")
    expect(gate.get_by_role("heading")).to_have_text("Your session has ended")
    expect(gate).to_contain_text("one-time link")


def test_every_page_response_carries_the_strict_content_security_policy(
    context: BrowserContext, server: ConsoleServer
) -> None:
    tab = context.new_page()
    response = tab.goto(f"{server.base_url}/")
    assert response is not None
    policy = response.headers["content-security-policy"]
    assert "script-src 'self'" in policy
    assert "img-src 'self'" in policy
    assert "frame-ancestors 'none'" in policy
    assert response.headers["x-content-type-options"] == "nosniff"


def test_signing_out_ends_the_session_and_takes_a_pending_card_with_it(
    page: Page, model: FakeModel, server: ConsoleServer, searxng: Peer
) -> None:
    model.script(tool_call("web_search", {"query": "otters"}))
    page.fill("#composer-input", "Search for otters")
    page.keyboard.press("Enter")
    expect(page.locator(".confirm-card")).to_be_visible()
    page.get_by_role("button", name="Sign out").click()
    gate = page.locator("#gate")
    expect(gate.get_by_role("heading")).to_have_text("You are signed out")
    expect(gate).to_contain_text("spyglass serve --print-login-url")
    expect(page.locator("#app")).to_be_hidden()
    expect(page.locator(".confirm-card")).to_have_count(0)
    expect(page.locator("#messages > *")).to_have_count(0)
    # The service ended the session: the browser's cookie no longer opens anything.
    assert page.request.get(f"{server.base_url}/api/v1/policy").status == 401
    assert searxng.requests["/search"] == 0
    screenshot(page, "signed-out")
    # A fresh link signs in again to a usable, unlocked chat.
    page.goto(server.login_url())
    expect(page.get_by_role("textbox", name="Message")).to_be_enabled()
    expect(page.locator(".confirm-card")).to_have_count(0)
