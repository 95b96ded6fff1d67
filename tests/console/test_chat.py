"""The chat: a message streams in as an answer, rendered as Markdown, and can be stopped."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.console.conftest import DEFAULT_RESULTS
from tests.console.harness import ConsoleServer, run_coroutine, screenshot, searxng_route
from tests.console.models import reactive
from tests.support.fake_model import (
    FakeModel,
    Reply,
    text,
    tool_call,
    tool_calls,
    without_tool_support,
)
from tests.support.fetch_peers import Peer, wait_until

pytestmark = pytest.mark.browser


def ask(page: Page, question: str) -> None:
    page.fill("#composer-input", question)
    page.keyboard.press("Enter")


def test_a_plain_answer_streams_into_the_transcript_as_markdown(
    page: Page, model: FakeModel
) -> None:
    model.script(
        text("Otters **hold hands** while sleeping.\n\n- so they\n- do not drift", pieces=6)
    )
    ask(page, "Tell me about otters")
    answer = page.locator(".message-assistant .answer")
    expect(answer.locator("strong")).to_have_text("hold hands")
    expect(answer.locator("li")).to_have_text(["so they", "do not drift"])
    expect(page.locator(".message-user .bubble")).to_have_text("Tell me about otters")
    expect(page.locator("#send-button")).to_be_visible()
    assert model.requests[0]["messages"][-1]["content"] == "Tell me about otters"
    screenshot(page, "answer")


def test_reasoning_arrives_collapsed_above_the_answer(page: Page, model: FakeModel) -> None:
    model.script(text("Forty-two.", reasoning="The user wants the answer. It is 42."))
    ask(page, "What is the answer?")
    reasoning = page.locator(".message-assistant .reasoning")
    expect(page.locator(".answer")).to_have_text("Forty-two.")
    expect(reasoning).to_be_visible()
    expect(reasoning).not_to_have_attribute("open", "")
    expect(reasoning.locator(".reasoning-body")).to_be_hidden()
    reasoning.locator("summary").click()
    expect(reasoning.locator(".reasoning-body")).to_have_text(
        "The user wants the answer. It is 42."
    )


def test_the_stop_button_ends_a_slow_answer_and_keeps_what_was_written(
    page: Page, model: FakeModel, server: ConsoleServer
) -> None:
    model.script(Reply(deltas=[{"content": f"word{n} "} for n in range(200)], delay=0.05))
    ask(page, "Talk for a long time")
    stop = page.get_by_role("button", name="Stop answering")
    expect(page.locator(".answer")).to_contain_text("word3")
    stop.click()
    # The service ended the turn (and said so): the stream was not cut.
    expect(page.locator(".note")).to_have_text(
        "Stopped. What was written so far is kept; calls not started were not made."
    )
    expect(page.get_by_role("button", name="Send message")).to_be_visible()
    expect(stop).to_be_hidden()
    shown = page.locator(".answer").inner_text()
    assert "word199" not in shown
    # The service kept the partial answer in history.
    expect(page.locator(".history-item")).to_have_count(1)
    history = server.app.state.spyglass.history
    listed = run_coroutine(history.conversations(None))
    stored = run_coroutine(history.conversation(listed[0]["id"]))
    assert stored["messages"][-1]["text"].startswith("word0 word1 word2 word3")


def test_new_conversation_clears_the_transcript_and_starts_a_fresh_thread(
    page: Page, model: FakeModel
) -> None:
    model.script(text("First answer."), text("Second answer."))
    ask(page, "First question")
    expect(page.locator(".answer")).to_have_text("First answer.")
    page.get_by_role("button", name="New conversation").click()
    expect(page.locator(".message")).to_have_count(0)
    expect(page.locator("#empty-state")).to_be_visible()
    ask(page, "Second question")
    expect(page.locator(".answer")).to_have_text("Second answer.")
    assert "conversation_id" not in model.requests[-1]  # a new thread, not a continuation
    assert [m["content"] for m in model.requests[-1]["messages"] if m["role"] == "user"] == [
        "Second question"
    ]


def test_an_unreachable_model_is_explained_in_the_conversation(
    page: Page, model: FakeModel
) -> None:
    model.script(Reply(status=503))
    ask(page, "Hello?")
    note = page.locator(".note-error")
    expect(note).to_be_visible()
    expect(note).to_contain_text("127.0.0.1")
    expect(page.get_by_role("button", name="Send message")).to_be_visible()


def test_the_console_works_on_a_360_pixel_phone_in_the_dark_theme(
    browser: Browser, server: ConsoleServer, model: FakeModel
) -> None:
    context = browser.new_context(viewport={"width": 360, "height": 740}, color_scheme="dark")
    try:
        tab = context.new_page()
        tab.goto(server.login_url())
        model.default = reactive
        model.script(tool_call("web_search", {"query": "sea otter tool use " + "rocks " * 12}))
        ask(tab, "Do otters use tools?")
        card = tab.locator(".confirm-card")
        expect(card.get_by_role("button", name="Approve: Search SearXNG for")).to_be_in_viewport()
        assert tab.evaluate("document.documentElement.scrollWidth") <= 360
        screenshot(tab, "phone-dark-confirm")
        card.get_by_role("button", name="Approve: Search SearXNG for").click()
        expect(tab.locator(".answer")).to_contain_text("From the search:")
        assert tab.evaluate("document.documentElement.scrollWidth") <= 360
        background = tab.evaluate("getComputedStyle(document.body).backgroundColor")
        assert background == "rgb(20, 21, 24)"  # the dark palette's --bg
        # The conversation list is a drawer behind the menu button.
        expect(tab.locator("#sidebar")).not_to_be_in_viewport()
        tab.get_by_role("button", name="Show conversations").click()
        expect(tab.locator("#sidebar")).to_be_in_viewport()
        expect(tab.locator(".history-title")).to_have_text(["Do otters use tools?"])
        tab.locator("#scrim").click(position={"x": 340, "y": 300})
        expect(tab.locator("#sidebar")).not_to_be_in_viewport()
    finally:
        context.close()


def test_every_control_has_an_accessible_name_and_a_visible_focus_ring(page: Page) -> None:
    unnamed = page.evaluate(
        """() => [...document.querySelectorAll('button, input, textarea, [role=switch]')]
            .filter(el => el.offsetParent !== null)
            .filter(el => !(el.getAttribute('aria-label') || el.getAttribute('aria-labelledby')
                || el.labels?.length || el.textContent.trim()))
            .map(el => el.outerHTML)"""
    )
    assert unnamed == []
    # Keyboard focus (not focus set from script) is what :focus-visible rings.
    page.get_by_role("switch", name="Web access").focus()
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Tab")
    focused = page.evaluate("document.activeElement.id")
    outline = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
    assert (focused, outline) == ("web-switch", "solid")


def test_a_service_that_went_away_is_explained_and_the_page_stays_usable(
    page: Page, server: ConsoleServer
) -> None:
    server.__exit__(None, None, None)
    ask(page, "Still there?")
    expect(page.locator(".note-error")).to_have_text(
        "Cannot reach the Spyglass service. Is `spyglass serve` still running?"
    )
    expect(page.get_by_role("button", name="Send message")).to_be_visible()
    expect(page.get_by_role("textbox", name="Message")).to_be_enabled()


def test_a_model_without_tool_support_answers_and_the_page_says_once_why_it_cannot_search(
    page: Page, model: FakeModel
) -> None:
    # Behaves like Ollama with a model whose template has no tools.
    model.default = without_tool_support(lambda body: text("Otters sleep holding hands."))
    ask(page, "Tell me about otters")
    first = page.locator(".message-assistant").nth(0)
    expect(first.locator(".answer")).to_have_text("Otters sleep holding hands.")
    expect(first.locator(".note-info")).to_contain_text("cannot search the web")
    ask(page, "And sea otters?")
    second = page.locator(".message-assistant").nth(1)
    expect(second.locator(".answer")).to_have_text("Otters sleep holding hands.")
    expect(second.locator(".note")).to_have_count(0)
    screenshot(page, "model-without-tools")


@pytest.mark.parametrize("width", [390, 360])
def test_on_a_phone_every_header_button_shows_a_word_beside_its_icon(
    browser: Browser, server: ConsoleServer, width: int
) -> None:
    context = browser.new_context(viewport={"width": width, "height": 800}, is_mobile=True)
    try:
        tab = context.new_page()
        tab.goto(server.login_url())
        tab.wait_for_selector("#composer-input:not([disabled])")
        # The owner's header: conversations, approvals, people, new.
        expect(tab.locator("#people-open")).to_be_visible()
        shown = tab.eval_on_selector_all(
            ".topbar button:not([role=switch])",
            """buttons => buttons.filter((b) => b.offsetParent !== null).map((b) => ({
                name: b.getAttribute("aria-label"),
                words: b.innerText.trim(),
                right: b.getBoundingClientRect().right,
            }))""",
        )
        assert [b["words"] for b in shown] == ["Chats", "Approvals", "People", "New"]
        assert all(b["name"] for b in shown)
        assert all(b["right"] <= width for b in shown)
        assert tab.evaluate("document.documentElement.scrollWidth") <= width
    finally:
        context.close()


@pytest.mark.parametrize("width", [360, 600])
def test_on_a_narrow_screen_nothing_of_the_closed_drawer_shows_past_its_edge(
    browser: Browser, server: ConsoleServer, width: int
) -> None:
    context = browser.new_context(viewport={"width": width, "height": 740})
    try:
        tab = context.new_page()
        tab.goto(server.login_url())
        tab.wait_for_selector("#composer-input:not([disabled])")
        # The drawer's switches and approval modes are all off screen until it opens.
        rights = tab.eval_on_selector_all(
            ".sidebar-foot .web-switch, .sidebar-foot select, .sidebar-foot button",
            "parts => parts.map((p) => p.getBoundingClientRect().right)",
        )
        assert rights and all(right <= 0 for right in rights), rights
        tab.get_by_role("button", name="Show conversations").click()
        expect(tab.locator("#fetch-approvals-drawer")).to_be_in_viewport()
    finally:
        context.close()


def test_on_a_phone_the_capability_switches_and_sign_out_are_in_the_drawer(
    browser: Browser, server: ConsoleServer
) -> None:
    context = browser.new_context(viewport={"width": 360, "height": 740})
    try:
        tab = context.new_page()
        tab.goto(server.login_url())
        expect(tab.get_by_role("switch", name="Web access")).to_be_in_viewport()
        assert tab.evaluate("document.documentElement.scrollWidth") <= 360
        tab.get_by_role("button", name="Show conversations").click()
        fetch = tab.get_by_role("switch", name="Read pages")
        expect(fetch).to_be_in_viewport()
        fetch.click()
        expect(fetch).to_have_attribute("aria-checked", "false")
        expect(fetch).to_be_enabled()
        assert server.runtime.policy.read()["web_fetch_enabled"] is False
        screenshot(tab, "phone-drawer-switches")
        tab.get_by_role("button", name="Sign out").click()
        expect(tab.locator("#gate").get_by_role("heading")).to_have_text("You are signed out")
    finally:
        context.close()


def test_stop_while_an_approved_round_runs_cancels_the_search_under_way_and_starts_no_other(
    page: Page, model: FakeModel, searxng: Peer
) -> None:
    release = threading.Event()
    answer = searxng_route(DEFAULT_RESULTS)

    def held(handler: Any) -> None:
        release.wait(10)
        answer(handler)

    searxng.routes["/search"] = held
    try:
        model.script(
            tool_calls(
                ("web_search", {"query": "sea otters"}, "c1"),
                ("web_search", {"query": "beavers"}, "c2"),
                ("web_search", {"query": "river otters"}, "c3"),
            )
        )
        ask(page, "Compare three animals")
        page.get_by_role("button", name="Approve all 3 calls").click()
        assert wait_until(lambda: searxng.requests["/search"] == 1)
        page.get_by_role("button", name="Stop answering").click()
        expect(page.locator(".note")).to_contain_text("Stopped.")
        expect(page.get_by_role("button", name="Send message")).to_be_visible()
    finally:
        release.set()
    # The search under way was cancelled; the two after it never reached the provider.
    assert searxng.requests["/search"] == 1
    expect(page.locator(".tool-ok")).to_have_count(0)
