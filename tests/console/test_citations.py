"""Citations in the console: the answer's [n] markers link to their sources, which come first."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from tests.console.conftest import DEFAULT_RESULTS
from tests.console.harness import SearchResult, searxng_route
from tests.support.fake_model import FakeModel, text, tool_call
from tests.support.fetch_peers import Peer

pytestmark = pytest.mark.browser

THIRD = SearchResult(
    "Otter - Britannica",
    "https://www.britannica.com/animal/otter",
    "Otters are semiaquatic mammals of the weasel family.",
)
RESULTS = [*DEFAULT_RESULTS, THIRD]


@pytest.fixture
def searxng() -> Iterator[Peer]:
    with Peer({"/search": searxng_route(RESULTS)}) as peer:
        yield peer


def search_then_answer(page: Page, model: FakeModel, answer: str) -> None:
    model.script(tool_call("web_search", {"query": "sea otter tools"}), text(answer))
    page.fill("#composer-input", "How do sea otters use tools?")
    page.keyboard.press("Enter")
    page.get_by_role("button", name="Approve: Search SearXNG for").click()
    expect(page.locator(".answer").last).to_contain_text(answer.split(" [")[0])


def test_an_answer_citing_2_of_three_results_links_it_and_lists_it_first(
    page: Page, model: FakeModel
) -> None:
    search_then_answer(page, model, "They crack shellfish with rocks [2].")
    link = page.locator(".answer a.cite")
    expect(link).to_have_text("[2]")
    expect(link).to_have_attribute("href", RESULTS[1].url)
    expect(link).to_have_attribute("rel", "noopener noreferrer")
    cited = page.locator(".sources > .sources-list a")
    expect(cited).to_have_text([RESULTS[1].title])
    more = page.locator(".sources-more")
    expect(more.locator("summary")).to_have_text("Also found (2)")
    expect(more.locator("a")).to_have_text([RESULTS[0].title, THIRD.title])
    # The same after opening the conversation again from history.
    page.reload()
    page.locator(".history-open").first.click()
    expect(page.locator(".answer a.cite")).to_have_attribute("href", RESULTS[1].url)
    expect(page.locator(".sources > .sources-list a")).to_have_text([RESULTS[1].title])


def test_an_answer_without_markers_lists_every_source_as_found(
    page: Page, model: FakeModel
) -> None:
    search_then_answer(page, model, "Sea otters use rocks as tools.")
    expect(page.locator(".sources > .sources-list a")).to_have_text([r.title for r in RESULTS])
    expect(page.locator(".sources-more")).to_have_count(0)
    expect(page.locator(".answer a.cite")).to_have_count(0)
