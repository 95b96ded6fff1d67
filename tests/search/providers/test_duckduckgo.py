"""The DuckDuckGo HTML adapter against pages shaped like html.duckduckgo.com's answers."""

from __future__ import annotations

from urllib.parse import quote

import pytest

from spyglass.search.cleaning import clean_results
from spyglass.search.model import SearchFailure, SearchQuery
from spyglass.search.providers.duckduckgo import unwrap
from tests.search.replay import ReplayServer, Reply, ask

HTML = {"Content-Type": "text/html; charset=utf-8"}


def _result(href: str, title: str, snippet: str, extra_class: str = "") -> str:
    return f"""
    <div class="result results_links results_links_deep web-result {extra_class}">
      <div class="links_main links_deep result__body">
        <h2 class="result__title"><a rel="nofollow" class="result__a" href="{href}">{title}</a></h2>
        <div class="result__extras"><a class="result__url" href="{href}">shown url</a></div>
        <a class="result__snippet" href="{href}">{snippet}</a>
      </div>
    </div>"""


def _page(*results: str) -> str:
    return (
        "<!DOCTYPE html><html><head><meta charset='utf-8'><title>q at DuckDuckGo</title></head>"
        "<body><div id='links' class='results'>" + "".join(results) + "</div></body></html>"
    )


def _wrapped(target: str) -> str:
    return f"//duckduckgo.com/l/?uddg={quote(target, safe='')}&amp;rut=abc123"


async def test_results_are_parsed_and_redirect_links_unwrapped(replay: ReplayServer) -> None:
    page = _page(
        _result(
            _wrapped("https://example.com/a?x=1+2&y=%2B"), "Example <b>A</b>", "First <b>hit</b>"
        ),
        _result("https://example.net/b", "Example B", "Second hit"),
    )
    replay.set("/html/", Reply(body=page, headers=HTML))
    parsed = await ask("duckduckgo", replay, key=None)
    cleaned = clean_results(parsed.results, SearchQuery("x"))
    assert cleaned == [
        {"title": "Example A", "url": "https://example.com/a?x=1+2&y=%2B", "snippet": "First hit"},
        {"title": "Example B", "url": "https://example.net/b", "snippet": "Second hit"},
    ]


async def test_ads_are_skipped(replay: ReplayServer) -> None:
    page = _page(
        _result("https://duckduckgo.com/y.js?ad_domain=shop.example", "Ad", "Buy", "result--ad"),
        _result("https://duckduckgo.com/y.js?ad_domain=other.example", "Sneaky ad", "Buy"),
        _result("https://example.org/", "Organic", "Real"),
    )
    replay.set("/html/", Reply(body=page, headers=HTML))
    parsed = await ask("duckduckgo", replay, key=None)
    assert [r["title"] for r in clean_results(parsed.results, SearchQuery("x"))] == ["Organic"]


async def test_the_form_posts_query_region_and_date_filter(replay: ReplayServer) -> None:
    replay.set("/html/", Reply(body=_page(), headers=HTML))
    query = SearchQuery("llama", time_range="month", exclude_domains=("pinterest.com",))
    await ask("duckduckgo", replay, query, key=None)
    sent = replay.last
    assert sent.method == "POST" and sent.path == "/html/"
    form = sent.form()
    assert form["q"] == ["llama -site:pinterest.com"]
    assert form["df"] == ["m"] and form["kl"] == ["wt-wt"] and form["b"] == [""]


async def test_no_results_page_is_an_empty_answer(replay: ReplayServer) -> None:
    body = (
        "<html><body><div id='links' class='results'><div class='no-results'>No  results.</div>"
        "</div></body></html>"
    )
    replay.set("/html/", Reply(body=body, headers=HTML))
    parsed = await ask("duckduckgo", replay, key=None)
    assert parsed.results == []


@pytest.mark.parametrize("status", [202, 403, 418, 429])
async def test_throttling_statuses_are_rate_limited_not_empty(
    replay: ReplayServer, status: int
) -> None:
    replay.set("/html/", Reply(status, "<html><body>please wait</body></html>", HTML))
    with pytest.raises(SearchFailure) as caught:
        await ask("duckduckgo", replay, key=None)
    assert caught.value.code == "SEARCH_RATE_LIMITED" and caught.value.retryable
    assert f"HTTP {status}" in caught.value.message


async def test_a_challenge_page_with_200_is_rate_limited(replay: ReplayServer) -> None:
    body = (
        "<html><body><div class='anomaly-modal__mask'></div>"
        "<form id='challenge-form' action='/anomaly.js'><input name='cc'></form></body></html>"
    )
    replay.set("/html/", Reply(body=body, headers=HTML))
    with pytest.raises(SearchFailure) as caught:
        await ask("duckduckgo", replay, key=None)
    assert caught.value.code == "SEARCH_RATE_LIMITED"
    assert "challenge page" in caught.value.message


async def test_a_page_that_is_not_a_result_page_is_invalid_output(replay: ReplayServer) -> None:
    replay.set("/html/", Reply(body="<html><body><p>Welcome!</p></body></html>", headers=HTML))
    with pytest.raises(SearchFailure) as caught:
        await ask("duckduckgo", replay, key=None)
    assert caught.value.code == "SEARCH_INVALID_OUTPUT"


async def test_an_empty_body_is_invalid_output(replay: ReplayServer) -> None:
    replay.set("/html/", Reply(body=b"", headers=HTML))
    with pytest.raises(SearchFailure) as caught:
        await ask("duckduckgo", replay, key=None)
    assert caught.value.code == "SEARCH_INVALID_OUTPUT"


async def test_server_errors_are_unavailable(replay: ReplayServer) -> None:
    replay.set("/html/", Reply(503, "<html>down</html>", HTML))
    with pytest.raises(SearchFailure) as caught:
        await ask("duckduckgo", replay, key=None)
    assert caught.value.code == "SEARCH_PROVIDER_UNAVAILABLE" and caught.value.retryable


async def test_hostile_titles_and_snippets_come_out_as_plain_text(replay: ReplayServer) -> None:
    page = _page(
        _result(
            "https://example.com/",
            "Title &lt;script&gt;alert(1)&lt;/script&gt;",
            "<script>alert(2)</script>Safe &amp; sound <b onclick='steal()'>link</b>",
        ),
        _result("javascript:alert(3)", "Forged", "forged link"),
    )
    replay.set("/html/", Reply(body=page, headers=HTML))
    parsed = await ask("duckduckgo", replay, key=None)
    cleaned = clean_results(parsed.results, SearchQuery("x"))
    assert cleaned == [
        {"title": "Title", "url": "https://example.com/", "snippet": "Safe & sound link"}
    ]


@pytest.mark.parametrize(
    ("href", "expected"),
    [
        ("/l/?uddg=https%3A%2F%2Fa.example%2Fp%3Fq%3D1%252B1&rut=x", "https://a.example/p?q=1%2B1"),
        ("//duckduckgo.com/l/?uddg=https%3A%2F%2Fb.example%2F", "https://b.example/"),
        ("https://duckduckgo.com/l/?uddg=https%3A%2F%2Fc.example%2F", "https://c.example/"),
        (
            "https://d.example/l/?uddg=https%3A%2F%2Fe.example%2F",
            "https://d.example/l/?uddg=https%3A%2F%2Fe.example%2F",
        ),
        ("https://f.example/page?uddg=keep", "https://f.example/page?uddg=keep"),
    ],
)
def test_uddg_links_are_unwrapped_once_and_only_on_duckduckgo(href: str, expected: str) -> None:
    assert unwrap(href) == expected
