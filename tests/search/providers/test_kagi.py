"""The Kagi adapter against recorded responses in Kagi's ``{meta, data, error}`` envelope."""

from __future__ import annotations

import pytest

from spyglass.search.cleaning import clean_results
from spyglass.search.model import SearchFailure, SearchQuery
from tests.search.replay import SECRET, ReplayServer, Reply, ask

META = {"id": "120145a4", "node": "us-east", "ms": 310, "api_balance": 4.5}


async def _failure(replay: ReplayServer, reply: Reply) -> SearchFailure:
    replay.set("/search", reply)
    with pytest.raises(SearchFailure) as caught:
        await ask("kagi", replay)
    assert SECRET not in caught.value.message
    return caught.value


def _error(code: int, msg: str) -> dict:
    return {"meta": META, "data": None, "error": [{"code": code, "msg": msg, "ref": None}]}


async def test_only_t0_entries_are_results_and_snippet_may_be_missing(
    replay: ReplayServer,
) -> None:
    body = {
        "meta": META,
        "data": [
            {"t": 0, "rank": 1, "url": "https://a.example/", "title": "A", "snippet": "<b>a</b>"},
            {"t": 0, "rank": 2, "url": "https://b.example/", "title": "B"},
            {"t": 1, "list": ["related one", "related two"]},
        ],
    }
    replay.set("/search", Reply(body=body))
    page = await ask("kagi", replay)
    assert clean_results(page.results, SearchQuery("x")) == [
        {"title": "A", "url": "https://a.example/", "snippet": "a"},
        {"title": "B", "url": "https://b.example/", "snippet": ""},
    ]


async def test_request_uses_bot_authorization_and_limit(replay: ReplayServer) -> None:
    replay.set("/search", Reply(body={"meta": META, "data": []}))
    await ask("kagi", replay, SearchQuery("kagi", count=2, include_domains=("kagi.com",)))
    sent = replay.last
    assert sent.headers["authorization"] == f"Bot {SECRET}"
    assert sent.query == {"q": ["kagi site:kagi.com"], "limit": ["2"]}


async def test_zero_results(replay: ReplayServer) -> None:
    replay.set("/search", Reply(body={"meta": META, "data": []}))
    assert (await ask("kagi", replay)).results == []


async def test_code_2_is_auth_failed(replay: ReplayServer) -> None:
    failure = await _failure(replay, Reply(401, _error(2, "Unauthorized")))
    assert failure.code == "SEARCH_AUTH_FAILED" and "Unauthorized" in failure.message


@pytest.mark.parametrize("code", [100, 101])
async def test_billing_codes_are_quota_exceeded(replay: ReplayServer, code: int) -> None:
    failure = await _failure(replay, Reply(402, _error(code, "Insufficient credit")))
    assert failure.code == "SEARCH_QUOTA_EXCEEDED"


async def test_code_1_is_rejected(replay: ReplayServer) -> None:
    failure = await _failure(replay, Reply(400, _error(1, "Missing q parameter")))
    assert failure.code == "SEARCH_PROVIDER_REJECTED" and "Missing q parameter" in failure.message


async def test_code_0_is_unavailable_and_retryable(replay: ReplayServer) -> None:
    failure = await _failure(replay, Reply(500, _error(0, "Internal error")))
    assert failure.code == "SEARCH_PROVIDER_UNAVAILABLE" and failure.retryable


async def test_429_without_envelope_uses_generic_rate_limit(replay: ReplayServer) -> None:
    failure = await _failure(replay, Reply(429, b"slow down", {"Content-Type": "text/plain"}))
    assert failure.code == "SEARCH_RATE_LIMITED"


async def test_malformed_json_and_missing_data_are_invalid_output(replay: ReplayServer) -> None:
    assert (await _failure(replay, Reply(body=b"not json"))).code == "SEARCH_INVALID_OUTPUT"
    assert (await _failure(replay, Reply(body={"meta": META}))).code == "SEARCH_INVALID_OUTPUT"
