"""The SearXNG adapter against recorded responses shaped like a real instance's JSON API."""

from __future__ import annotations

import pytest

from spyglass.search.cleaning import clean_results
from spyglass.search.model import SearchFailure, SearchQuery
from tests.search.replay import ReplayServer, Reply, ask


def _answer(results: list[dict[str, object]], unresponsive: list[list[str]] | None = None) -> dict:
    # The keys a SearXNG instance always sends (number_of_results was dropped upstream).
    return {
        "query": "hello world",
        "results": results,
        "answers": [],
        "corrections": [],
        "infoboxes": [],
        "suggestions": [],
        "unresponsive_engines": unresponsive or [],
    }


def _result(n: int, **extra: object) -> dict[str, object]:
    item: dict[str, object] = {
        "url": f"https://example.org/{n}",
        "title": f"Result {n}",
        "content": f"snippet {n}",
        "engine": "localjson",
        "engines": ["localjson"],
        "positions": [n],
        "score": 1.0 / n,
        "category": "general",
        "publishedDate": None,
    }
    item.update(extra)
    return item


async def test_results_come_from_url_title_and_content(replay: ReplayServer) -> None:
    replay.set("/search", Reply(body=_answer([_result(1), _result(2)])))
    page = await ask("searxng", replay)
    assert [(r.title, r.url, r.snippet) for r in page.results] == [
        ("Result 1", "https://example.org/1", "snippet 1"),
        ("Result 2", "https://example.org/2", "snippet 2"),
    ]
    assert page.partial is False and page.notes == []


async def test_request_asks_for_json_in_english_with_browser_headers(
    replay: ReplayServer,
) -> None:
    replay.set("/base/search", Reply(body=_answer([])))
    query = SearchQuery("rust async", time_range="week", include_domains=("docs.rs",))
    await ask("searxng", replay, query, prefix="/base")
    sent = replay.last
    assert sent.method == "GET" and sent.path == "/base/search"
    assert sent.query["format"] == ["json"] and sent.query["locale"] == ["en"]
    assert sent.query["time_range"] == ["week"]
    assert sent.query["q"] == ["rust async site:docs.rs"]
    assert "text/html" in sent.headers["accept"]
    assert "gzip" in sent.headers["accept-encoding"]
    assert sent.headers["accept-language"]
    assert not sent.headers["user-agent"].lower().startswith(("python", "curl"))


async def test_zero_results_without_failing_engines_is_an_empty_answer(
    replay: ReplayServer,
) -> None:
    replay.set("/search", Reply(body=_answer([])))
    page = await ask("searxng", replay)
    assert page.results == [] and page.partial is False


async def test_zero_results_with_a_time_range_notes_that_engines_may_skip_it(
    replay: ReplayServer,
) -> None:
    replay.set("/search", Reply(body=_answer([])))
    page = await ask("searxng", replay, SearchQuery("x", time_range="day"))
    assert page.results == [] and "time_range" in page.notes[0]


async def test_json_output_switched_off_says_to_add_json_to_formats(replay: ReplayServer) -> None:
    forbidden = (
        "<!doctype html>\n<html lang=en>\n<title>403 Forbidden</title>\n<h1>Forbidden</h1>\n"
        "<p>You don&#39;t have the permission to access the requested resource.</p>\n"
    )
    replay.set("/search", Reply(403, forbidden, {"Content-Type": "text/html; charset=utf-8"}))
    with pytest.raises(SearchFailure) as caught:
        await ask("searxng", replay)
    assert caught.value.code == "SEARCH_PROVIDER_REJECTED"
    assert "search.formats" in caught.value.message and "settings.yml" in caught.value.message
    assert caught.value.retryable is False


async def test_limiter_429_explains_limiter_and_pass_ip(replay: ReplayServer) -> None:
    replay.set("/search", Reply(429, "Too Many Requests", {"Content-Type": "text/plain"}))
    with pytest.raises(SearchFailure) as caught:
        await ask("searxng", replay)
    assert caught.value.code == "SEARCH_RATE_LIMITED" and caught.value.retryable
    assert "limiter" in caught.value.message and "pass_ip" in caught.value.message


async def test_bad_parameter_400_carries_searxngs_own_words(replay: ReplayServer) -> None:
    replay.set("/search", Reply(400, {"error": "Invalid value decade for parameter time_range"}))
    with pytest.raises(SearchFailure) as caught:
        await ask("searxng", replay)
    assert caught.value.code == "SEARCH_PROVIDER_REJECTED"
    assert "Invalid value decade for parameter time_range" in caught.value.message


async def test_every_engine_blocked_is_rate_limited_naming_the_engines(
    replay: ReplayServer,
) -> None:
    body = _answer([], [["brave", "Suspended: too many requests"], ["startpage", "CAPTCHA"]])
    replay.set("/search", Reply(body=body))
    with pytest.raises(SearchFailure) as caught:
        await ask("searxng", replay)
    assert caught.value.code == "SEARCH_RATE_LIMITED" and caught.value.retryable
    assert "brave (too many requests)" in caught.value.message
    assert "startpage (captcha)" in caught.value.message


async def test_every_engine_down_is_unavailable_not_nothing_found(replay: ReplayServer) -> None:
    body = _answer([], [["e500", "HTTP error"], ["slow", "timeout"]])
    replay.set("/search", Reply(body=body))
    with pytest.raises(SearchFailure) as caught:
        await ask("searxng", replay)
    assert caught.value.code == "SEARCH_PROVIDER_UNAVAILABLE"
    assert "e500 (http error)" in caught.value.message and "slow (timeout)" in caught.value.message


async def test_some_engines_failing_gives_results_marked_partial_with_a_note(
    replay: ReplayServer,
) -> None:
    replay.set("/search", Reply(body=_answer([_result(1)], [["e500", "HTTP error"]])))
    page = await ask("searxng", replay)
    assert len(page.results) == 1 and page.partial is True
    assert page.notes == ["searxng engines that did not answer: e500 (http error)"]


async def test_5xx_is_unavailable_and_retryable(replay: ReplayServer) -> None:
    replay.set("/search", Reply(500, {"error": "search error"}))
    with pytest.raises(SearchFailure) as caught:
        await ask("searxng", replay)
    assert caught.value.code == "SEARCH_PROVIDER_UNAVAILABLE" and caught.value.retryable
    assert "HTTP 500" in caught.value.message


async def test_malformed_json_is_invalid_output(replay: ReplayServer) -> None:
    replay.set("/search", Reply(body=b'{"results": [', headers={}))
    with pytest.raises(SearchFailure) as caught:
        await ask("searxng", replay)
    assert caught.value.code == "SEARCH_INVALID_OUTPUT" and "searxng" in caught.value.message


async def test_missing_results_key_is_invalid_output(replay: ReplayServer) -> None:
    replay.set("/search", Reply(body={"query": "x", "answers": []}))
    with pytest.raises(SearchFailure) as caught:
        await ask("searxng", replay)
    assert caught.value.code == "SEARCH_INVALID_OUTPUT"


async def test_results_with_missing_fields_are_kept_or_dropped_not_crashing(
    replay: ReplayServer,
) -> None:
    items = [
        {"title": "no url"},
        {"url": None, "title": "null url"},
        {"url": "https://a.example/"},
        7,
    ]
    replay.set("/search", Reply(body=_answer(items)))  # type: ignore[arg-type]
    page = await ask("searxng", replay)
    cleaned = clean_results(page.results, SearchQuery("x"))
    assert cleaned == [{"title": "https://a.example/", "url": "https://a.example/", "snippet": ""}]


async def test_html_titles_and_hostile_snippets_come_out_as_plain_text(
    replay: ReplayServer,
) -> None:
    hostile = _result(
        1,
        title="<b>Fast</b> &amp; <i>safe</i>",
        content=(
            '<script>alert("x")</script>Click <a href="javascript:steal()">here</a> &lt;img '
            "src=x onerror=alert(1)&gt; now"
        ),
    )
    forged = _result(2, url="javascript:alert(1)")
    replay.set("/search", Reply(body=_answer([hostile, forged])))
    page = await ask("searxng", replay)
    cleaned = clean_results(page.results, SearchQuery("x"))
    assert cleaned == [
        {"title": "Fast & safe", "url": "https://example.org/1", "snippet": "Click here now"}
    ]
