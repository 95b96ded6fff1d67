"""Tavily Extract against recorded responses."""

from __future__ import annotations

import pytest

from spyglass.errors import CapabilityError
from tests.fetch.hosted.replay import PAGE_URL, read_page
from tests.search.replay import SECRET, ReplayServer, Reply

PATH = "/extract"

EXTRACTED = {
    "results": [{"url": PAGE_URL, "raw_content": "# Storm warning\n\nRain tonight.", "images": []}],
    "failed_results": [],
    "response_time": 0.42,
}


async def _failure(replay: ReplayServer, reply: Reply) -> CapabilityError:
    replay.set(PATH, reply)
    with pytest.raises(CapabilityError) as caught:
        await read_page("tavily", replay)
    assert SECRET not in caught.value.message
    return caught.value


async def test_the_request_asks_for_basic_markdown_without_images(replay: ReplayServer) -> None:
    replay.set(PATH, Reply(body=EXTRACTED))
    await read_page("tavily", replay)
    assert replay.last.headers["authorization"] == f"Bearer {SECRET}"
    assert replay.last.json() == {
        "urls": [PAGE_URL],
        "extract_depth": "basic",
        "format": "markdown",
        "include_images": False,
    }


async def test_the_page_has_no_title_and_opens_with_the_provider_line(
    replay: ReplayServer,
) -> None:
    replay.set(PATH, Reply(body=EXTRACTED))
    page = await read_page("tavily", replay)
    assert page.document.title is None
    assert page.document.text.startswith("[Page read by Tavily")
    assert page.document.text.endswith("Rain tonight.")


async def test_a_failed_extraction_is_provider_rejected(replay: ReplayServer) -> None:
    body = {"results": [], "failed_results": [{"url": PAGE_URL, "error": "blocked by robots"}]}
    failure = await _failure(replay, Reply(body=body))
    assert failure.code == "FETCH_PROVIDER_REJECTED" and "blocked by robots" in failure.message


@pytest.mark.parametrize("status", [402, 432, 433])
async def test_402_432_and_433_are_quota_exceeded(replay: ReplayServer, status: int) -> None:
    body = {"detail": {"error": "This request exceeds your plan's set usage limit."}}
    failure = await _failure(replay, Reply(status, body))
    assert failure.code == "FETCH_QUOTA_EXCEEDED" and not failure.retryable


async def test_401_is_auth_failed(replay: ReplayServer) -> None:
    failure = await _failure(replay, Reply(401, {"detail": {"error": "Unauthorized"}}))
    assert failure.code == "FETCH_AUTH_FAILED"


async def test_a_list_shaped_validation_error_is_explained(replay: ReplayServer) -> None:
    body = {"detail": [{"loc": ["body", "urls"], "msg": "urls must be a list", "type": "x"}]}
    failure = await _failure(replay, Reply(400, body))
    assert failure.code == "FETCH_PROVIDER_REJECTED"
    assert "urls must be a list" in failure.message


@pytest.mark.parametrize("status", [408, 425, 429, 500, 503])
async def test_temporary_failures_are_retryable(replay: ReplayServer, status: int) -> None:
    assert (await _failure(replay, Reply(status, {"detail": {"error": "x"}}))).retryable


async def test_malformed_answers_are_invalid_output(replay: ReplayServer) -> None:
    assert (await _failure(replay, Reply(body=b"nope"))).code == "FETCH_INVALID_OUTPUT"
    deep = b"[" * 100_000 + b"]" * 100_000
    assert (await _failure(replay, Reply(body=deep))).code == "FETCH_INVALID_OUTPUT"
    assert (await _failure(replay, Reply(body={"answer": 1}))).code == "FETCH_INVALID_OUTPUT"
