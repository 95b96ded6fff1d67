"""The Keenable adapter against recorded responses (page text lives in ``snippet``)."""

from __future__ import annotations

import pytest

from spyglass.search.cleaning import SNIPPET_CHARS, clean_results
from spyglass.search.model import SearchFailure, SearchQuery
from tests.search.replay import SECRET, ReplayServer, Reply, ask

PATH = "/v1/search"


async def _failure(replay: ReplayServer, reply: Reply) -> SearchFailure:
    replay.set(PATH, reply)
    with pytest.raises(SearchFailure) as caught:
        await ask("keenable", replay)
    assert SECRET not in caught.value.message
    return caught.value


async def test_snippet_wins_over_empty_description_and_is_cut(replay: ReplayServer) -> None:
    body = {
        "results": [
            {
                "title": "A",
                "url": "https://a.example/",
                "description": "",
                "snippet": "page " * 2000,
            },
            {"title": "B", "url": "https://b.example/", "description": "meta b"},
        ]
    }
    replay.set(PATH, Reply(body=body))
    cleaned = clean_results((await ask("keenable", replay)).results, SearchQuery("x"))
    assert cleaned[0]["snippet"].startswith("page") and len(cleaned[0]["snippet"]) <= SNIPPET_CHARS
    assert cleaned[1]["snippet"] == "meta b"


async def test_request_sends_query_count_and_key_header(replay: ReplayServer) -> None:
    replay.set(PATH, Reply(body={"results": []}))
    await ask("keenable", replay, SearchQuery("q", count=9))
    assert replay.last.headers["x-api-key"] == SECRET
    assert replay.last.query == {"query": ["q"], "count": ["9"]}


async def test_zero_results(replay: ReplayServer) -> None:
    replay.set(PATH, Reply(body={"results": []}))
    assert (await ask("keenable", replay)).results == []


@pytest.mark.parametrize("status", [401, 403])
async def test_401_and_403_are_auth_failed(replay: ReplayServer, status: int) -> None:
    failure = await _failure(replay, Reply(status, {"error": "invalid key"}))
    assert (
        failure.code == "SEARCH_AUTH_FAILED"
        and "SPYGLASS_SEARCH__KEENABLE__API_KEY" in failure.message
    )


async def test_429_and_5xx(replay: ReplayServer) -> None:
    assert (await _failure(replay, Reply(429, {}))).code == "SEARCH_RATE_LIMITED"
    assert (await _failure(replay, Reply(503, {}))).code == "SEARCH_PROVIDER_UNAVAILABLE"


async def test_malformed_json_and_missing_results_are_invalid_output(
    replay: ReplayServer,
) -> None:
    assert (await _failure(replay, Reply(body=b"\xff\xfe"))).code == "SEARCH_INVALID_OUTPUT"
    assert (await _failure(replay, Reply(body={"data": []}))).code == "SEARCH_INVALID_OUTPUT"


async def test_a_malformed_key_400_is_auth_failed(replay: ReplayServer) -> None:
    failure = await _failure(replay, Reply(400, {"detail": "Malformed API key"}))
    assert failure.code == "SEARCH_AUTH_FAILED"


async def test_recency_is_a_relative_published_after_delta(replay: ReplayServer) -> None:
    replay.set(PATH, Reply(body={"results": []}))
    await ask("keenable", replay, SearchQuery("q", time_range="week"))
    assert replay.last.query["published_after"] == ["7d"]


async def test_include_domains_fan_out_one_bounded_request_per_domain(
    replay: ReplayServer,
) -> None:
    body = {"results": [{"title": "A", "url": "https://a.example/x", "snippet": "a"}]}
    replay.set(PATH, Reply(body=body))
    query = SearchQuery("q", count=4, include_domains=("a.example", "b.example"))
    page = await ask("keenable", replay, query)
    sites = sorted(r.query["site"][0] for r in replay.requests)
    assert sites == ["a.example", "b.example"]
    assert all(r.query["count"] == ["4"] for r in replay.requests)
    assert all(r.query["query"] == ["q"] for r in replay.requests)
    assert len(page.results) == 2


async def test_exclusions_over_fetch_and_filter_locally_so_count_is_honoured(
    replay: ReplayServer,
) -> None:
    rows = [
        {
            "title": f"T{i}",
            "url": f"https://{'bad' if i % 2 else 'good'}{i}.example/",
            "snippet": "",
        }
        for i in range(30)
    ]
    rows = [
        {**row, "url": row["url"].replace(f"bad{i}.example", f"x{i}.bad.example")}
        for i, row in enumerate(rows)
    ]
    replay.set(PATH, Reply(body={"results": rows}))
    query = SearchQuery("q", count=5, exclude_domains=("bad.example",))
    page = await ask("keenable", replay, query)
    assert replay.last.query["count"] == ["50"] and "site" not in replay.last.query
    cleaned = clean_results(page.results, query)
    assert len(cleaned) == 5 and all("bad.example" not in r["url"] for r in cleaned)
