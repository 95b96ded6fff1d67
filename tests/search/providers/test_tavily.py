"""The Tavily adapter against recorded responses in the shapes Tavily documents."""

from __future__ import annotations

import pytest

from spyglass.search.cleaning import clean_results
from spyglass.search.model import SearchFailure, SearchQuery
from tests.search.replay import SECRET, ReplayServer, Reply, ask


async def _failure(replay: ReplayServer, reply: Reply) -> SearchFailure:
    replay.set("/search", reply)
    with pytest.raises(SearchFailure) as caught:
        await ask("tavily", replay)
    assert SECRET not in caught.value.message
    return caught.value


async def test_results_use_content_as_the_snippet(replay: ReplayServer) -> None:
    body = {
        "query": "hello",
        "answer": None,
        "images": [],
        "results": [
            {
                "title": "Hello",
                "url": "https://hello.example/",
                "content": "Hello &amp; welcome",
                "score": 0.9,
                "raw_content": None,
            }
        ],
        "response_time": 1.2,
    }
    replay.set("/search", Reply(body=body))
    page = await ask("tavily", replay)
    assert clean_results(page.results, SearchQuery("x")) == [
        {"title": "Hello", "url": "https://hello.example/", "snippet": "Hello & welcome"}
    ]


async def test_request_pushes_filters_upstream_with_bearer_key(replay: ReplayServer) -> None:
    replay.set("/search", Reply(body={"results": []}))
    query = SearchQuery("q", count=4, time_range="year", include_domains=("python.org",))
    await ask("tavily", replay, query)
    sent = replay.last
    assert sent.method == "POST" and sent.headers["authorization"] == f"Bearer {SECRET}"
    payload = sent.json()
    assert payload["query"] == "q" and payload["max_results"] == 4
    assert payload["time_range"] == "year" and payload["include_domains"] == ["python.org"]
    assert "api_key" not in payload


async def test_zero_results_is_an_empty_answer(replay: ReplayServer) -> None:
    replay.set("/search", Reply(body={"query": "q", "results": [], "response_time": 0.3}))
    assert (await ask("tavily", replay)).results == []


async def test_401_is_auth_failed(replay: ReplayServer) -> None:
    body = {"detail": {"error": "Unauthorized: missing or invalid API key."}}
    failure = await _failure(replay, Reply(401, body))
    assert failure.code == "SEARCH_AUTH_FAILED" and "search.tavily.api_key" in failure.message


@pytest.mark.parametrize("status", [432, 433])
async def test_plan_limits_are_quota_exceeded(replay: ReplayServer, status: int) -> None:
    body = {"detail": {"error": "This request exceeds your plan's set usage limit."}}
    failure = await _failure(replay, Reply(status, body))
    assert failure.code == "SEARCH_QUOTA_EXCEEDED" and f"HTTP {status}" in failure.message


async def test_429_is_rate_limited(replay: ReplayServer) -> None:
    body = {"detail": {"error": "Your request has been blocked due to excessive requests."}}
    failure = await _failure(replay, Reply(429, body))
    assert failure.code == "SEARCH_RATE_LIMITED" and failure.retryable


async def test_400_is_rejected_with_tavilys_words_in_either_detail_shape(
    replay: ReplayServer,
) -> None:
    failure = await _failure(replay, Reply(400, {"detail": "Invalid topic: sports"}))
    assert failure.code == "SEARCH_PROVIDER_REJECTED" and "Invalid topic: sports" in failure.message


async def test_500_is_unavailable(replay: ReplayServer) -> None:
    failure = await _failure(replay, Reply(500, {"detail": {"error": "Internal error"}}))
    assert failure.code == "SEARCH_PROVIDER_UNAVAILABLE"


async def test_malformed_json_and_missing_results_are_invalid_output(
    replay: ReplayServer,
) -> None:
    assert (await _failure(replay, Reply(body=b"{oops"))).code == "SEARCH_INVALID_OUTPUT"
    assert (await _failure(replay, Reply(body={"query": "q"}))).code == "SEARCH_INVALID_OUTPUT"


@pytest.mark.parametrize(
    ("status", "body", "said"),
    [
        (401, {"detail": {"error": "Unauthorized: missing or invalid API key."}}, "invalid API"),
        (429, {"detail": {"error": "Rate limit exceeded"}}, "Rate limit exceeded"),
        (432, {"detail": {"error": "plan limit reached"}}, "plan limit reached"),
        (
            422,
            {"detail": [{"loc": ["body", "max_results"], "msg": "must be <= 20"}, {"msg": "x"}]},
            "must be <= 20",
        ),
        (500, {"detail": "<b>internal</b> error"}, "internal error"),
    ],
)
async def test_tavilys_explanation_is_read_on_every_error_status(
    replay: ReplayServer, status: int, body: object, said: str
) -> None:
    replay.set("/search", Reply(status, body))
    with pytest.raises(SearchFailure) as caught:
        await ask("tavily", replay)
    assert said in caught.value.message
    assert "<b>" not in caught.value.message and SECRET not in caught.value.message
