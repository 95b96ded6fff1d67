"""The Exa adapter against recorded responses in the shapes Exa documents."""

from __future__ import annotations

import re

import pytest

from spyglass.search.cleaning import SNIPPET_CHARS, clean_results
from spyglass.search.model import SearchFailure, SearchQuery
from tests.search.replay import SECRET, ReplayServer, Reply, ask


async def _failure(replay: ReplayServer, reply: Reply) -> SearchFailure:
    replay.set("/search", reply)
    with pytest.raises(SearchFailure) as caught:
        await ask("exa", replay)
    assert SECRET not in caught.value.message
    return caught.value


async def test_highlights_are_the_snippet_and_whole_page_text_is_cut(
    replay: ReplayServer,
) -> None:
    body = {
        "requestId": "b5947044c4b78efa9552a7c89b306d95",
        "results": [
            {
                "id": "https://a.example/",
                "url": "https://a.example/",
                "title": "A",
                "highlights": ["first point", "second point"],
                "text": "ignored " * 1000,
            },
            {
                "id": "https://b.example/",
                "url": "https://b.example/",
                "title": "B",
                "text": "word " * 40000,
            },
        ],
        "searchType": "neural",
    }
    replay.set("/search", Reply(body=body))
    page = await ask("exa", replay)
    cleaned = clean_results(page.results, SearchQuery("x"))
    assert cleaned[0]["snippet"] == "first point … second point"
    assert len(cleaned[1]["snippet"]) <= SNIPPET_CHARS and cleaned[1]["snippet"].startswith("word")


async def test_request_pushes_domains_and_date_with_the_key_header(replay: ReplayServer) -> None:
    replay.set("/search", Reply(body={"requestId": "r", "results": []}))
    query = SearchQuery("q", count=7, time_range="week", exclude_domains=("spam.example",))
    await ask("exa", replay, query)
    sent = replay.last
    assert sent.headers["x-api-key"] == SECRET
    payload = sent.json()
    assert payload["numResults"] == 7 and payload["excludeDomains"] == ["spam.example"]
    assert payload["contents"] == {"highlights": True}
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z", payload["startPublishedDate"])


async def test_zero_results(replay: ReplayServer) -> None:
    replay.set("/search", Reply(body={"requestId": "r", "results": []}))
    assert (await ask("exa", replay)).results == []


async def test_401_is_auth_failed(replay: ReplayServer) -> None:
    failure = await _failure(replay, Reply(401, {"requestId": "r", "error": "Invalid API key"}))
    assert failure.code == "SEARCH_AUTH_FAILED"


async def test_402_is_quota_exceeded_with_the_tag(replay: ReplayServer) -> None:
    body = {"requestId": "r", "error": "You have run out of credits", "tag": "NO_MORE_CREDITS"}
    failure = await _failure(replay, Reply(402, body))
    assert failure.code == "SEARCH_QUOTA_EXCEEDED" and "NO_MORE_CREDITS" in failure.message


@pytest.mark.parametrize(
    ("status", "tag"), [(400, "INVALID_NUM_RESULTS"), (403, "FEATURE_DISABLED")]
)
async def test_400_and_403_are_rejected(replay: ReplayServer, status: int, tag: str) -> None:
    failure = await _failure(replay, Reply(status, {"requestId": "r", "error": "no", "tag": tag}))
    assert failure.code == "SEARCH_PROVIDER_REJECTED" and tag in failure.message


async def test_429_and_5xx(replay: ReplayServer) -> None:
    assert (await _failure(replay, Reply(429, {"error": "slow"}))).code == "SEARCH_RATE_LIMITED"
    failure = await _failure(replay, Reply(502, {"error": "upstream"}))
    assert failure.code == "SEARCH_PROVIDER_UNAVAILABLE"


async def test_malformed_json_and_missing_results_are_invalid_output(
    replay: ReplayServer,
) -> None:
    assert (await _failure(replay, Reply(body=b"[1,"))).code == "SEARCH_INVALID_OUTPUT"
    deep = b"[" * 100_000 + b"]" * 100_000
    assert (await _failure(replay, Reply(body=deep))).code == "SEARCH_INVALID_OUTPUT"
    assert (await _failure(replay, Reply(body={"requestId": "r"}))).code == "SEARCH_INVALID_OUTPUT"
