"""The conversation list: newest first, full-text search, open and delete."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.console.harness import ConsoleServer, run_coroutine, screenshot
from tests.console.models import reactive
from tests.support.fake_model import FakeModel, text, tool_call

pytestmark = pytest.mark.browser


def converse(page: Page, question: str) -> None:
    page.get_by_role("button", name="New conversation").click()
    page.fill("#composer-input", question)
    page.keyboard.press("Enter")
    expect(page.locator("#send-button")).to_be_visible()
    expect(page.locator(".message-assistant .answer")).not_to_be_empty()


def test_conversations_are_listed_newest_first_and_searched_by_what_was_said(
    page: Page, model: FakeModel
) -> None:
    model.script(
        text("Sourdough needs a lively starter."),
        text("Kestrels hover while hunting voles."),
    )
    converse(page, "How do I bake bread?")
    converse(page, "Which bird hovers?")
    listed = page.locator(".history-title")
    expect(listed).to_have_text(["Which bird hovers?", "How do I bake bread?"])
    # The model's words are searched too, not only the titles.
    search = page.get_by_role("searchbox", name="Search conversations")
    search.fill("voles")
    expect(listed).to_have_text(["Which bird hovers?"])
    screenshot(page, "history-search")
    search.fill("starter")
    expect(listed).to_have_text(["How do I bake bread?"])
    search.fill("zeppelin")
    expect(page.locator(".history-item")).to_have_count(0)
    expect(page.locator("#history-empty")).to_have_text("Nothing matches “zeppelin”.")


def test_opening_a_conversation_shows_its_messages_searches_and_sources(
    page: Page, model: FakeModel
) -> None:
    model.default = reactive
    model.script(tool_call("web_search", {"query": "sea otter tools"}))
    converse_with_approval(page)
    model.script(text("Ducks quack."))
    converse(page, "What do ducks say?")
    expect(page.locator(".message-user")).to_have_text(["What do ducks say?"])
    page.locator(".history-open", has_text="Otters and tools").click()
    expect(page.locator(".message-user")).to_have_text(["Otters and tools"])
    expect(page.locator(".tool-ok .tool-detail")).to_contain_text("sea otter tools")
    expect(page.locator(".sources-list a")).to_have_count(2)
    expect(page.locator(".history-item.active")).to_contain_text("Otters and tools")
    # The reopened conversation continues where it stopped.
    model.script(text("They also float on their backs."))
    page.fill("#composer-input", "Anything else?")
    page.keyboard.press("Enter")
    expect(page.locator(".answer").last).to_have_text("They also float on their backs.")
    assert model.requests[-1]["messages"][1]["content"] == "Otters and tools"


def converse_with_approval(page: Page) -> None:
    page.fill("#composer-input", "Otters and tools")
    page.keyboard.press("Enter")
    page.get_by_role("button", name="Approve: Search SearXNG for").click()
    expect(page.locator(".sources-list a")).to_have_count(2)


def test_deleting_takes_a_second_click_and_removes_the_conversation(
    page: Page, model: FakeModel, server: ConsoleServer
) -> None:
    model.script(text("Forty-two."))
    converse(page, "What is the answer?")
    item = page.locator(".history-item")
    expect(item).to_have_count(1)
    delete = item.get_by_role("button", name="Delete conversation: What is the answer?")
    delete.click()
    expect(item).to_have_count(1)
    item.get_by_role("button", name="Click again to delete: What is the answer?").click()
    expect(page.locator(".history-item")).to_have_count(0)
    # Deleting the open conversation clears the transcript, and the service forgot it.
    expect(page.locator(".message")).to_have_count(0)
    assert run_coroutine(server.app.state.spyglass.history.conversations(None)) == []


def test_a_request_left_unanswered_shows_as_not_approved_when_reopened(
    page: Page, model: FakeModel
) -> None:
    model.script(tool_call("web_search", {"query": "tide times"}))
    page.fill("#composer-input", "When is high tide?")
    page.keyboard.press("Enter")
    expect(page.locator(".confirm-card")).to_be_visible()
    expect(page.locator(".history-title")).to_have_text(["When is high tide?"])
    # Walk away from the card: start over, then reopen the conversation from the list.
    page.get_by_role("button", name="New conversation").click()
    expect(page.locator(".confirm-card")).to_have_count(0)
    expect(page.locator("#composer-input")).to_be_enabled()
    page.locator(".history-open", has_text="When is high tide?").click()
    block = page.locator(".tool-denied")
    expect(block.locator(".tool-detail")).to_have_text("left unanswered")
    expect(page.locator(".confirm-card")).to_have_count(0)
