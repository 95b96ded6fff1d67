"""The Firecrawl adapter against recorded responses in its v2 and v1 shapes."""

from __future__ import annotations

import pytest

from spyglass.search.cleaning import clean_results
from spyglass.search.model import SearchFailure, SearchQuery
from tests.search.replay import SECRET, ReplayServer, Reply, ask

PATH = "/v2/search"


async def _failure(replay: ReplayServer, reply: Reply) -> SearchFailure:
    replay.set(PATH, reply)
    with pytest.raises(SearchFailure) as caught:
        await ask("firecrawl", replay)
    assert SECRET not in caught.value.message
    return caught.value


async def test_v2_data_web_uses_description(replay: ReplayServer) -> None:
    body = {
        "success": True,
        "data": {
            "web": [
                {"url": "https://a.example/", "title": "A", "description": "about a", "position": 1}
            ]
        },
        "creditsUsed": 2,
    }
    replay.set(PATH, Reply(body=body))
    page = await ask("firecrawl", replay)
    assert clean_results(page.results, SearchQuery("x")) == [
        {"title": "A", "url": "https://a.example/", "snippet": "about a"}
    ]


async def test_v1_data_list_is_accepted(replay: ReplayServer) -> None:
    body = {
        "success": True,
        "data": [{"url": "https://b.example/", "title": "B", "description": "b"}],
    }
    replay.set(PATH, Reply(body=body))
    assert [r.url for r in (await ask("firecrawl", replay)).results] == ["https://b.example/"]


async def test_request_sends_limit_tbs_and_bearer_key(replay: ReplayServer) -> None:
    replay.set(PATH, Reply(body={"success": True, "data": {"web": []}}))
    await ask("firecrawl", replay, SearchQuery("q", count=2, time_range="day"))
    sent = replay.last
    assert sent.headers["authorization"] == f"Bearer {SECRET}"
    assert sent.json() == {
        "query": "q",
        "limit": 2,
        "sources": [{"type": "web"}],
        "ignoreInvalidURLs": True,
        "tbs": "qdr:d",
    }


async def test_zero_results(replay: ReplayServer) -> None:
    replay.set(PATH, Reply(body={"success": True, "data": {"web": []}}))
    assert (await ask("firecrawl", replay)).results == []


async def test_402_is_quota_exceeded(replay: ReplayServer) -> None:
    body = {"success": False, "error": "Payment Required: Insufficient credits"}
    failure = await _failure(replay, Reply(402, body))
    assert failure.code == "SEARCH_QUOTA_EXCEEDED" and "Insufficient credits" in failure.message


async def test_401_is_auth_failed(replay: ReplayServer) -> None:
    failure = await _failure(replay, Reply(401, {"success": False, "error": "Unauthorized"}))
    assert failure.code == "SEARCH_AUTH_FAILED"


async def test_403_is_provider_rejected_not_auth_and_not_retryable(replay: ReplayServer) -> None:
    failure = await _failure(replay, Reply(403, {"success": False, "error": "blocked target"}))
    assert failure.code == "SEARCH_PROVIDER_REJECTED" and not failure.retryable


async def test_425_too_early_is_retryable(replay: ReplayServer) -> None:
    failure = await _failure(replay, Reply(425, {"success": False}))
    assert failure.code == "SEARCH_PROVIDER_UNAVAILABLE" and failure.retryable


async def test_400_429_and_5xx(replay: ReplayServer) -> None:
    rejected = await _failure(replay, Reply(400, {"success": False, "error": "bad limit"}))
    assert rejected.code == "SEARCH_PROVIDER_REJECTED" and "bad limit" in rejected.message
    limited = await _failure(replay, Reply(429, {"success": False}, {"Retry-After": "30"}))
    assert limited.code == "SEARCH_RATE_LIMITED"
    down = await _failure(replay, Reply(500, {"success": False, "error": "UNKNOWN_ERROR"}))
    assert down.code == "SEARCH_PROVIDER_UNAVAILABLE"


async def test_success_false_with_200_is_invalid_output(replay: ReplayServer) -> None:
    failure = await _failure(replay, Reply(body={"success": False, "error": "engine failed"}))
    assert failure.code == "SEARCH_INVALID_OUTPUT" and "engine failed" in failure.message


async def test_malformed_json_and_missing_data_are_invalid_output(replay: ReplayServer) -> None:
    assert (await _failure(replay, Reply(body=b"nope"))).code == "SEARCH_INVALID_OUTPUT"
    assert (await _failure(replay, Reply(body={"success": True}))).code == "SEARCH_INVALID_OUTPUT"
