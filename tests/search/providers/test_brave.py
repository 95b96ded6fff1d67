"""The Brave adapter against recorded responses in the shapes Brave documents."""

from __future__ import annotations

import pytest

from spyglass.search.cleaning import clean_results
from spyglass.search.model import SearchFailure, SearchQuery
from tests.search.replay import SECRET, ReplayServer, Reply, ask

PATH = "/res/v1/web/search"


def _error(status: int, code: str, detail: str, meta: dict | None = None) -> dict:
    return {
        "type": "ErrorResponse",
        "error": {
            "id": "c1d2",
            "status": status,
            "code": code,
            "detail": detail,
            "meta": meta or {},
        },
        "time": 1735000000,
    }


async def _failure(replay: ReplayServer, reply: Reply) -> SearchFailure:
    replay.set(PATH, reply)
    with pytest.raises(SearchFailure) as caught:
        await ask("brave", replay)
    assert SECRET not in caught.value.message
    return caught.value


async def test_results_use_description_as_the_snippet(replay: ReplayServer) -> None:
    body = {
        "type": "search",
        "query": {"original": "hello", "more_results_available": True},
        "web": {
            "type": "search",
            "results": [
                {
                    "title": "Hello <strong>World</strong>",
                    "url": "https://hello.example/",
                    "description": "The <strong>hello</strong> page",
                    "profile": {"name": "Hello"},
                    "language": "en",
                    "family_friendly": True,
                }
            ],
        },
    }
    replay.set(PATH, Reply(body=body))
    page = await ask("brave", replay)
    assert clean_results(page.results, SearchQuery("x")) == [
        {"title": "Hello World", "url": "https://hello.example/", "snippet": "The hello page"}
    ]


async def test_request_sends_the_key_header_count_and_freshness(replay: ReplayServer) -> None:
    replay.set(PATH, Reply(body={"type": "search"}))
    await ask("brave", replay, SearchQuery("news", count=3, time_range="day"))
    sent = replay.last
    assert sent.headers["x-subscription-token"] == SECRET
    assert sent.query["q"] == ["news"] and sent.query["count"] == ["3"]
    assert sent.query["freshness"] == ["pd"] and sent.query["text_decorations"] == ["false"]


async def test_no_web_section_is_zero_results(replay: ReplayServer) -> None:
    replay.set(PATH, Reply(body={"type": "search", "query": {"original": "zzzz"}}))
    page = await ask("brave", replay)
    assert page.results == []


async def test_invalid_key_422_is_auth_failed_not_a_bad_request(replay: ReplayServer) -> None:
    failure = await _failure(
        replay,
        Reply(
            422,
            _error(
                422,
                "SUBSCRIPTION_TOKEN_INVALID",
                "The provided subscription token is invalid.",
                {"component": "authentication"},
            ),
        ),
    )
    assert failure.code == "SEARCH_AUTH_FAILED" and not failure.retryable
    assert "search.brave.api_key" in failure.message


async def test_missing_key_validation_error_is_auth_failed(replay: ReplayServer) -> None:
    meta = {"errors": [{"type": "missing", "loc": ["header", "x-subscription-token"]}]}
    failure = await _failure(
        replay, Reply(422, _error(422, "VALIDATION", "Unable to validate request header", meta))
    )
    assert failure.code == "SEARCH_AUTH_FAILED"


async def test_bad_parameter_validation_error_is_rejected_with_brave_words(
    replay: ReplayServer,
) -> None:
    body = {
        "type": "ErrorResponse",
        "errors": [
            {
                "code": "VALIDATION",
                "detail": "Unable to validate request parameter(s)",
                "meta": {"errors": [{"loc": ["query", "count"]}]},
            }
        ],
    }
    failure = await _failure(replay, Reply(422, body))
    assert failure.code == "SEARCH_PROVIDER_REJECTED"
    assert "Unable to validate request parameter(s)" in failure.message


async def test_rate_limited_429_is_retryable(replay: ReplayServer) -> None:
    body = _error(
        429,
        "RATE_LIMITED",
        "Request rate limit exceeded for plan.",
        {"plan": "Free", "rate_limit": 1, "rate_current": 1, "quota_limit": 2000},
    )
    failure = await _failure(replay, Reply(429, body, {"X-RateLimit-Reset": "1, 1419704"}))
    assert failure.code == "SEARCH_RATE_LIMITED" and failure.retryable


async def test_quota_limited_429_is_quota_exceeded(replay: ReplayServer) -> None:
    body = _error(429, "QUOTA_LIMITED", "Request quota limit exceeded for plan.")
    failure = await _failure(replay, Reply(429, body))
    assert failure.code == "SEARCH_QUOTA_EXCEEDED" and not failure.retryable


async def test_subscription_not_found_says_to_subscribe(replay: ReplayServer) -> None:
    failure = await _failure(replay, Reply(404, _error(404, "SUBSCRIPTION_NOT_FOUND", "none")))
    assert failure.code == "SEARCH_AUTH_FAILED" and "subscri" in failure.message


async def test_server_error_is_unavailable(replay: ReplayServer) -> None:
    failure = await _failure(replay, Reply(502, "bad gateway", {"Content-Type": "text/plain"}))
    assert failure.code == "SEARCH_PROVIDER_UNAVAILABLE" and failure.retryable


async def test_malformed_json_is_invalid_output(replay: ReplayServer) -> None:
    failure = await _failure(replay, Reply(body=b"<html>captive portal</html>"))
    assert failure.code == "SEARCH_INVALID_OUTPUT"


async def test_web_section_without_results_is_invalid_output(replay: ReplayServer) -> None:
    failure = await _failure(replay, Reply(body={"type": "search", "web": {"type": "search"}}))
    assert failure.code == "SEARCH_INVALID_OUTPUT" and "web.results" in failure.message
