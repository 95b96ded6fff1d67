"""A child's search waits for a parent, who approves it from the queue on a phone-sized page;
the owner adds a person under Settings → People."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from spyglass.accounts import manage
from spyglass.accounts.roles import Role
from tests.console.harness import ConsoleServer, run_coroutine, screenshot
from tests.console.models import reactive
from tests.support.fake_model import FakeModel, tool_call
from tests.support.fetch_peers import Peer

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}


@pytest.fixture(autouse=True)
def _model_reacts(model: FakeModel) -> None:
    model.default = reactive


@pytest.fixture
def phone(browser: Browser) -> Iterator[BrowserContext]:
    ctx = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    ctx.set_default_timeout(10_000)
    yield ctx
    ctx.close()


def signed_in(context: BrowserContext, url: str) -> Page:
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda error: errors.append(str(error)))
    tab.goto(url)
    tab.wait_for_selector("#composer-input:not([disabled])")
    assert errors == []
    return tab


def link_for(server: ConsoleServer, name: str, role: Role) -> str:
    added = run_coroutine(manage.add(server.runtime.accounts, name, role))
    return f"{server.base_url}/login?code={added.login_code}"


@contextmanager
def kid_waits_for(
    browser: Browser, phone: BrowserContext, server: ConsoleServer, model: FakeModel
) -> Iterator[tuple[Page, Page]]:
    """A child's search waiting for approval, and the parent's approvals queue open on a
    phone: (the child's page, the parent's)."""
    kid_context = browser.new_context(viewport=PHONE)
    kid_context.set_default_timeout(10_000)
    try:
        kid = signed_in(kid_context, link_for(server, "kid", Role.CHILD))
        parent = signed_in(phone, server.login_url())
        model.script(tool_call("web_search", {"query": "sea otters"}))
        kid.fill("#composer-input", "Tell me about sea otters")
        kid.keyboard.press("Enter")
        expect(kid.locator(".confirm-waiting")).to_be_visible()
        parent.locator("#approvals-open").click()
        yield kid, parent
    finally:
        kid_context.close()


def test_a_parent_approves_a_childs_search_from_the_queue_on_a_phone(
    browser: Browser,
    phone: BrowserContext,
    server: ConsoleServer,
    model: FakeModel,
    searxng: Peer,
) -> None:
    kid_context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    kid_context.set_default_timeout(10_000)
    try:
        kid = signed_in(kid_context, link_for(server, "kid", Role.CHILD))
        parent = signed_in(phone, server.login_url())
        expect(kid.locator("#approvals-open")).to_be_hidden()

        model.script(tool_call("web_search", {"query": "sea otters"}))
        kid.fill("#composer-input", "Tell me about sea otters")
        kid.keyboard.press("Enter")
        card = kid.locator(".confirm-card")
        expect(card.locator(".confirm-waiting")).to_have_text(
            "Waiting for an owner or a parent (owner) to approve this."
        )
        expect(card.get_by_role("button", name="Approve: Search SearXNG for")).to_be_hidden()
        screenshot(kid, "child-waiting-phone")

        expect(parent.locator("#approvals-badge")).to_have_text("1", timeout=15_000)
        parent.locator("#approvals-open").click()
        panel = parent.locator("#approvals-panel")
        expect(panel).to_be_visible()
        box = panel.bounding_box()
        assert box is not None and box["width"] <= PHONE["width"]
        item = panel.locator(".approval")
        expect(item.locator(".approval-who")).to_have_text("kid wants to search for")
        expect(item.locator(".confirm-value")).to_have_text("sea otters")
        assert searxng.requests["/search"] == 0
        screenshot(parent, "approval-queue-phone")
        item.get_by_role("button", name="Approve kid: sea otters").click()
        expect(panel.locator(".panel-empty")).to_have_text("Nothing is waiting for you.")

        expect(kid.locator(".answer")).to_contain_text("From the search", timeout=15_000)
        assert searxng.requests["/search"] == 1
    finally:
        kid_context.close()


def test_a_declined_childs_search_never_leaves(
    browser: Browser,
    phone: BrowserContext,
    server: ConsoleServer,
    model: FakeModel,
    searxng: Peer,
) -> None:
    with kid_waits_for(browser, phone, server, model) as (kid, parent):
        parent.get_by_role("button", name="Decline kid: sea otters").click()
        expect(kid.locator(".answer")).to_contain_text("you declined", timeout=15_000)
        assert searxng.requests["/search"] == 0


def test_the_owner_adds_a_person_and_gets_their_one_time_link(
    phone: BrowserContext, server: ConsoleServer
) -> None:
    owner = signed_in(phone, server.login_url())
    owner.locator("#people-open").click()
    panel = owner.locator("#people-panel")
    panel.get_by_label("New person's name").fill("Sam")
    panel.get_by_label("New person's role").select_option("guest")
    panel.get_by_role("button", name="Add").click()
    expect(panel.locator(".people-link code")).to_contain_text("/login?code=")
    expect(panel.get_by_label("Role of sam")).to_have_value("guest")
    names = [a.name for a in run_coroutine(server.runtime.accounts.all())]
    assert names == ["owner", "sam"]
    screenshot(owner, "people-phone")


def test_the_owner_limits_a_person_from_their_row(
    phone: BrowserContext, server: ConsoleServer
) -> None:
    link_for(server, "sam", Role.MEMBER)
    owner = signed_in(phone, server.login_url())
    owner.locator("#people-open").click()
    row = owner.locator('#people-panel .person[data-name="sam"]')
    row.get_by_text("Limits").click()
    row.get_by_label("Sites sam may not use").fill("Example.com, news.example")
    row.get_by_label("Calls a day for sam").fill("7")
    row.get_by_label("sam approves others' calls").check()
    row.get_by_role("button", name="Save").click()
    expect(owner.locator('#people-panel .person[data-name="sam"] .person-facts')).to_have_text(
        "7 calls a day"
    )
    sam = run_coroutine(server.runtime.accounts.find("sam"))
    assert sam is not None
    assert (sam.deny_domains, sam.daily_budget, sam.may_approve) == (
        ("example.com", "news.example"),
        7,
        True,
    )


def test_people_and_approvals_are_not_offered_to_a_member(
    phone: BrowserContext, server: ConsoleServer
) -> None:
    member = signed_in(phone, link_for(server, "sam", Role.MEMBER))
    expect(member.locator("#people-open")).to_be_hidden()
    expect(member.locator("#approvals-open")).to_be_hidden()


def test_the_owner_sets_how_often_a_persons_page_reads_ask(
    phone: BrowserContext, server: ConsoleServer
) -> None:
    link_for(server, "sam", Role.MEMBER)
    owner = signed_in(phone, server.login_url())
    owner.locator("#people-open").click()
    row = owner.locator('#people-panel .person[data-name="sam"]')
    row.get_by_text("Limits").click()
    expect(row.get_by_label("When sam's page reads ask")).to_have_value("household")
    row.get_by_label("When sam's page reads ask").select_option("flagged")
    row.get_by_role("button", name="Save").click()
    expect(
        owner.locator('#people-panel .person[data-name="sam"]').get_by_label(
            "When sam's page reads ask"
        )
    ).to_have_value("flagged")
    sam = run_coroutine(server.runtime.accounts.find("sam"))
    assert sam is not None and sam.approvals == {"fetch": "flagged"}


def test_a_parent_allows_a_childs_searches_for_the_rest_of_the_conversation(
    browser: Browser,
    phone: BrowserContext,
    server: ConsoleServer,
    model: FakeModel,
    searxng: Peer,
) -> None:
    with kid_waits_for(browser, phone, server, model) as (kid, parent):
        parent.get_by_role("button", name="Allow for this conversation, kid: sea otters").click()
        expect(kid.locator(".answer")).to_contain_text("From the search", timeout=15_000)
        assert searxng.requests["/search"] == 1
        # The next clean search of this conversation runs without waiting for anyone.
        model.script(tool_call("web_search", {"query": "sea otter pups"}))
        kid.fill("#composer-input", "And their pups?")
        kid.keyboard.press("Enter")
        expect(kid.locator(".answer").last).to_contain_text("From the search", timeout=15_000)
        assert searxng.requests["/search"] == 2
