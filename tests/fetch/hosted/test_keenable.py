"""Keenable Fetch against recorded responses."""

from __future__ import annotations

import pytest

from spyglass.errors import CapabilityError
from spyglass.fetch.hosted.keenable import MAX_CHARS
from tests.fetch.hosted.replay import PAGE_URL, read_page
from tests.search.replay import SECRET, ReplayServer, Reply

PATH = "/v1/fetch"

FETCHED = {
    "url": PAGE_URL,
    "title": "Storm warning",
    "description": "Rain",
    "author": "Desk",
    "content": "# Storm warning\n\nRain tonight.",
    "published_at": 1768435200,
}


async def _failure(replay: ReplayServer, reply: Reply) -> CapabilityError:
    replay.set(PATH, reply)
    with pytest.raises(CapabilityError) as caught:
        await read_page("keenable", replay)
    assert SECRET not in caught.value.message
    return caught.value


async def test_the_request_asks_for_bounded_live_markdown(replay: ReplayServer) -> None:
    replay.set(PATH, Reply(body=FETCHED))
    page = await read_page("keenable", replay)
    assert replay.last.method == "GET"
    assert replay.last.headers["x-api-key"] == SECRET
    assert replay.last.query == {"url": [PAGE_URL], "max_chars": [str(MAX_CHARS)], "live": ["true"]}
    assert page.document.title == "Storm warning"
    assert page.document.text.startswith("[Page read by Keenable")


async def test_the_byte_budget_covers_the_characters_asked_for(replay: ReplayServer) -> None:
    # Four-byte characters up to the character bound still fit, though over the page cap.
    replay.set(PATH, Reply(body={**FETCHED, "content": "😀" * 5000}))
    page = await read_page("keenable", replay, max_page_bytes=10_000)
    assert page.document.text.count("😀") == 5000


async def test_a_malformed_key_400_is_auth_failed(replay: ReplayServer) -> None:
    failure = await _failure(replay, Reply(400, {"detail": "Invalid API key format"}))
    assert failure.code == "FETCH_AUTH_FAILED"


@pytest.mark.parametrize("status", [401, 403])
async def test_401_and_403_are_auth_failed(replay: ReplayServer, status: int) -> None:
    assert (await _failure(replay, Reply(status, {"detail": "no"}))).code == "FETCH_AUTH_FAILED"


async def test_a_page_outside_the_index_is_provider_rejected(replay: ReplayServer) -> None:
    failure = await _failure(replay, Reply(404, {"detail": "Document not found"}))
    assert failure.code == "FETCH_PROVIDER_REJECTED" and not failure.retryable


async def test_402_is_quota_and_429_is_retryable(replay: ReplayServer) -> None:
    assert (await _failure(replay, Reply(402, {}))).code == "FETCH_QUOTA_EXCEEDED"
    limited = await _failure(replay, Reply(429, {}))
    assert limited.code == "FETCH_RATE_LIMITED" and limited.retryable


async def test_malformed_answers_are_invalid_output(replay: ReplayServer) -> None:
    assert (await _failure(replay, Reply(body=b"{"))).code == "FETCH_INVALID_OUTPUT"
    assert (await _failure(replay, Reply(body={"url": PAGE_URL}))).code == "FETCH_INVALID_OUTPUT"


async def test_a_source_url_that_is_not_a_web_address_is_not_reported(
    replay: ReplayServer,
) -> None:
    replay.set(PATH, Reply(body={**FETCHED, "url": "javascript:alert(1)"}))
    page = await read_page("keenable", replay)
    assert page.final_url == PAGE_URL
