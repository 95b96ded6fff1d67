"""Jina Reader against recorded responses."""

from __future__ import annotations

import pytest

from spyglass.capabilities.fetch import extract
from spyglass.errors import CapabilityError
from spyglass.fetch.hosted import READERS
from spyglass.fetch.hosted.dispatch import read
from spyglass.settings import Settings
from tests.fetch.hosted.replay import PAGE_URL, read_page
from tests.search.replay import SECRET, ReplayServer, Reply

PATH = "/" + PAGE_URL
ANSWER = {
    "code": 200,
    "status": 20000,
    "data": {"title": "Storm warning", "url": PAGE_URL, "content": "Rain tonight."},
}


async def test_the_target_travels_in_the_path_and_the_key_as_bearer(replay: ReplayServer) -> None:
    replay.set(PATH, Reply(body=ANSWER))
    page = await read_page("jina", replay)
    assert replay.last.headers["authorization"] == f"Bearer {SECRET}"
    assert replay.last.headers["x-return-format"] == "markdown"
    assert page.document.title == "Storm warning"
    assert page.document.text.startswith("[Page read by Jina Reader")


async def test_without_a_key_no_authorization_is_sent(replay: ReplayServer) -> None:
    replay.set(PATH, Reply(body=ANSWER))
    settings = Settings.model_validate({"fetch": {"jina": {"base_url": replay.url}}})
    await read(READERS["jina"], PAGE_URL, settings, timeout=5, extract=extract)
    assert "authorization" not in replay.last.headers


@pytest.mark.parametrize(
    ("status", "code"),
    [
        (402, "FETCH_QUOTA_EXCEEDED"),
        (451, "FETCH_PROVIDER_REJECTED"),
        (429, "FETCH_RATE_LIMITED"),
        (503, "FETCH_PROVIDER_UNAVAILABLE"),
    ],
)
async def test_error_statuses(replay: ReplayServer, status: int, code: str) -> None:
    replay.set(PATH, Reply(status, {"code": status, "message": "nope"}))
    with pytest.raises(CapabilityError) as caught:
        await read_page("jina", replay)
    assert caught.value.code == code


async def test_an_answer_without_content_is_invalid_output(replay: ReplayServer) -> None:
    replay.set(PATH, Reply(body={"code": 200, "data": {}}))
    with pytest.raises(CapabilityError) as caught:
        await read_page("jina", replay)
    assert caught.value.code == "FETCH_INVALID_OUTPUT"
