"""The privacy check on the card (notices, the flagged part highlighted as text) and the
receipt under every answer, live and from history."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.console.harness import ConsoleServer, screenshot
from tests.console.models import reactive
from tests.support.fake_model import FakeModel, tool_call
from tests.support.fetch_peers import Peer

pytestmark = pytest.mark.browser

EMAIL = "jane.doe@example.com"
#: Markup in the query must stay text, even inside the highlighted span.
QUERY = f"<b>reply</b> from {EMAIL} <img src=x onerror=alert(1)>"


@pytest.fixture(autouse=True)
def _model_reacts(model: FakeModel) -> None:
    model.default = reactive


def ask(page: Page, model: FakeModel, query: str) -> None:
    expect(page.get_by_role("button", name="Send message")).to_be_visible()
    model.script(tool_call("web_search", {"query": query}))
    page.fill("#composer-input", "Find the reply to my letter")
    page.keyboard.press("Enter")
    expect(page.locator(".confirm-card")).to_be_visible()


def test_the_card_names_the_finding_and_highlights_exactly_the_flagged_text(
    page: Page, model: FakeModel, searxng: Peer
) -> None:
    ask(page, model, QUERY)
    card = page.locator(".confirm-card")
    value = card.locator(".confirm-value")
    expect(value).to_have_text(QUERY)
    mark = value.locator("mark.confirm-mark")
    expect(mark).to_have_count(1)
    expect(mark).to_have_text(EMAIL)
    expect(mark).to_have_attribute("data-kinds", "privacy.email")
    expect(value.locator("b, img")).to_have_count(0)
    notice = card.locator(".confirm-notice-privacy")
    expect(notice).to_have_text(re.compile(r"This query contains an email address"))
    screenshot(page, "confirm-privacy")
    assert searxng.requests["/search"] == 0


def test_a_clean_query_has_no_highlight_and_no_notice(
    page: Page, model: FakeModel, searxng: Peer
) -> None:
    ask(page, model, "sea otter tools")
    card = page.locator(".confirm-card")
    expect(card.locator(".confirm-value")).to_have_text("sea otter tools")
    expect(card.locator("mark")).to_have_count(0)
    expect(card.locator(".confirm-notices")).to_have_count(0)


def test_the_receipt_under_the_answer_says_what_left_and_history_keeps_it(
    page: Page, model: FakeModel, searxng: Peer
) -> None:
    ask(page, model, "how do sea otters use tools")
    page.get_by_role("button", name="Approve: Search SearXNG for").click()
    receipt = page.locator(".message-assistant .receipt").last
    expect(receipt.locator(".receipt-text")).to_have_text(
        re.compile(
            r"Left this device: searched 'how do sea otters use tools' \(SearXNG, \d\d:\d\d UTC\)"
        )
    )
    expect(receipt).to_have_class(re.compile("receipt-left"))
    # A second answer that needed no web says so.
    page.fill("#composer-input", "thanks!")
    page.keyboard.press("Enter")
    last = page.locator(".message-assistant .receipt-text").last
    expect(last).to_have_text("Stayed on this device")
    expect(page.locator(".message-assistant .receipt")).to_have_count(2)
    screenshot(page, "receipt")
    # Reloaded from history, both receipts are still there.
    page.reload()
    page.locator(".history-title").first.click()
    expect(page.locator(".message-assistant .receipt")).to_have_count(2)
    expect(page.locator(".message-assistant .receipt").first).to_contain_text("Left this device")


def test_a_fetch_card_says_the_address_did_not_come_from_the_conversation(
    page: Page, model: FakeModel, searxng: Peer
) -> None:
    expect(page.get_by_role("button", name="Send message")).to_be_visible()
    model.script(tool_call("web_fetch", {"url": "https://made-up.example.com/page"}))
    page.fill("#composer-input", "what does that page say?")
    page.keyboard.press("Enter")
    # (The card also says the page may be rendered: a notice of its own, fetch.render.)
    notice = page.locator('.confirm-card .confirm-notice-info[data-kind="provenance.unknown"]')
    expect(notice).to_have_text(
        re.compile(r"^\W*This address did not come from this conversation$")
    )
    expect(notice).to_have_attribute("data-kind", "provenance.unknown")


#: A query built to mislead: characters that do not show (and one of each kind the server
#: judges), sixty newlines, then what they would have pushed out of view.
HIDDEN_SAMPLE = ["\t", "\u202e", "\u200b", "\u00a0", "\u2028", "\x1b", "\ufe0f", "\U000e0041"]
MISLEADING = (
    "tea " + "".join(f"{c}x" for c in HIDDEN_SAMPLE) + "é ж" + "\n" * 60 + "my password is hunter2"
)


def test_characters_that_do_not_show_are_drawn_as_the_escapes_the_server_names(
    page: Page, model: FakeModel, searxng: Peer
) -> None:
    from spyglass.untrusted.shown import escape, hidden

    ask(page, model, MISLEADING)
    card = page.locator(".confirm-card")
    value = card.locator(".confirm-value")
    # Exactly the characters the server's rule calls hidden, each as its escape.
    expect(value.locator(".shown-escape")).to_have_text(
        [escape(c) for c in MISLEADING if hidden(c)]
    )
    # Nothing pushed out of view: the box needs no scrolling to show the end of the query.
    expect(value.get_by_text("my password is hunter2", exact=False)).to_be_in_viewport()
    assert value.evaluate("node => node.scrollHeight <= node.clientHeight")
    notice = card.locator('.confirm-notice-privacy[data-kind="shown.hidden"]')
    expect(notice).to_contain_text("This query holds characters that do not show")
    expect(notice).to_contain_text("right-to-left override (U+202E)")
    assert searxng.requests["/search"] == 0


def test_a_look_alike_host_is_named_in_ascii_beside_a_mixed_script_warning(
    page: Page, model: FakeModel, searxng: Peer
) -> None:
    expect(page.get_by_role("button", name="Send message")).to_be_visible()
    model.script(tool_call("web_fetch", {"url": "https://\u0430pple.com/signin"}))
    page.fill("#composer-input", "open the sign-in page")
    page.keyboard.press("Enter")
    card = page.locator(".confirm-card")
    notice = card.locator('.confirm-notice-privacy[data-kind="shown.host"]')
    expect(notice).to_contain_text(
        "This address has a host name that mixes Cyrillic and Latin letters"
    )
    expect(notice).to_contain_text("in ASCII it is xn--pple-43d.com")
    expect(card.locator(".confirm-host")).to_have_text("on xn--pple-43d.com")
    expect(card.locator(".confirm-value mark.confirm-mark")).to_have_text("\u0430pple.com")


PHONE = {"width": 390, "height": 844}


def test_on_a_phone_a_receipt_with_a_long_url_wraps_inside_the_screen(
    browser: Browser, server: ConsoleServer, model: FakeModel
) -> None:
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    context.set_default_timeout(10_000)
    try:
        tab = context.new_page()
        tab.goto(server.login_url())
        tab.wait_for_selector("#composer-input:not([disabled])")
        url = "https://example.org/" + "x" * 40 + "/" + "long-path-segment-" * 6 + "?q=1"
        model.script(tool_call("web_fetch", {"url": url}))
        tab.fill("#composer-input", "read this")
        tab.keyboard.press("Enter")
        tab.locator(".confirm-card").get_by_role("button", name=re.compile("^Deny")).click()
        receipt = tab.locator(".message-assistant .receipt").last
        expect(receipt).to_contain_text("not sent: read example.org/xxxx")
        # No horizontal overflow: neither the receipt nor the page is wider than the phone.
        assert receipt.evaluate("node => node.scrollWidth <= node.clientWidth")
        box = receipt.bounding_box()
        assert box is not None and box["x"] + box["width"] <= PHONE["width"]
        assert tab.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    finally:
        context.close()
