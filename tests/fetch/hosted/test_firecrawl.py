"""Firecrawl Scrape against recorded responses: request shape, page, and every error class."""

from __future__ import annotations

import pytest

from spyglass.errors import CapabilityError
from tests.fetch.hosted.replay import PAGE_URL, read_page
from tests.search.replay import SECRET, ReplayServer, Reply

PATH = "/v2/scrape"

SCRAPED = {
    "success": True,
    "data": {
        "markdown": "# Storm warning\n\nHeavy rain is expected tonight.",
        "metadata": {
            "title": "Storm warning",
            "sourceURL": "https://news.example.com/story?amp=0",
            "url": "https://news.example.com/story",
            "statusCode": 200,
            "contentType": "text/html",
        },
    },
}


async def _failure(replay: ReplayServer, reply: Reply) -> CapabilityError:
    replay.set(PATH, reply)
    with pytest.raises(CapabilityError) as caught:
        await read_page("firecrawl", replay)
    assert SECRET not in caught.value.message
    return caught.value


async def test_the_request_asks_for_main_content_markdown_with_tls_verification_on(
    replay: ReplayServer,
) -> None:
    replay.set(PATH, Reply(body=SCRAPED))
    await read_page("firecrawl", replay)
    sent = replay.last
    assert sent.method == "POST"
    assert sent.headers["authorization"] == f"Bearer {SECRET}"
    body = sent.json()
    assert body["url"] == PAGE_URL
    assert body["formats"] == ["markdown"]
    assert body["onlyMainContent"] is True
    assert body["skipTlsVerification"] is False


async def test_the_page_opens_with_a_provider_line_and_keeps_the_source_url(
    replay: ReplayServer,
) -> None:
    replay.set(PATH, Reply(body=SCRAPED))
    page = await read_page("firecrawl", replay)
    assert page.document.title == "Storm warning"
    assert page.document.text.startswith("[Page read by Firecrawl")
    assert "Heavy rain is expected tonight." in page.document.text
    assert page.final_url == "https://news.example.com/story?amp=0"
    assert page.url == PAGE_URL and not page.redirected


async def test_html_content_goes_through_the_same_extraction_as_a_direct_fetch(
    replay: ReplayServer,
) -> None:
    html = (
        "<html><head><title>Plain</title></head><body><nav>menu menu</nav><article>"
        "<h1>Plain</h1><p>The article body is here and it is long enough to be kept.</p>"
        "</article></body></html>"
    )
    replay.set(PATH, Reply(body={"success": True, "data": {"html": html, "metadata": {}}}))
    page = await read_page("firecrawl", replay)
    assert "<p>" not in page.document.text
    assert "The article body is here" in page.document.text


async def test_401_is_auth_failed(replay: ReplayServer) -> None:
    failure = await _failure(replay, Reply(401, {"success": False, "error": "Unauthorized"}))
    assert failure.code == "FETCH_AUTH_FAILED" and not failure.retryable


async def test_402_is_quota_exceeded(replay: ReplayServer) -> None:
    failure = await _failure(replay, Reply(402, {"success": False, "error": "Payment Required"}))
    assert failure.code == "FETCH_QUOTA_EXCEEDED" and not failure.retryable


async def test_403_is_provider_rejected_not_auth_and_not_retryable(replay: ReplayServer) -> None:
    body = {"success": False, "error": "This website is no longer supported"}
    failure = await _failure(replay, Reply(403, body))
    assert failure.code == "FETCH_PROVIDER_REJECTED" and not failure.retryable
    assert "website is no longer supported" not in failure.message


@pytest.mark.parametrize("status", [408, 425, 429, 500, 502, 503])
async def test_timeouts_rate_limits_and_server_errors_are_retryable(
    replay: ReplayServer, status: int
) -> None:
    failure = await _failure(replay, Reply(status, {"success": False, "error": "later"}))
    assert failure.retryable, failure.code
    assert failure.code in {"FETCH_PROVIDER_UNAVAILABLE", "FETCH_RATE_LIMITED"}


async def test_a_page_the_site_refused_is_an_http_error_naming_the_status(
    replay: ReplayServer,
) -> None:
    body = {"success": True, "data": {"markdown": "Not found", "metadata": {"statusCode": 404}}}
    failure = await _failure(replay, Reply(body=body))
    assert failure.code == "FETCH_HTTP_ERROR" and "404" in failure.message


async def test_malformed_answers_are_invalid_output(replay: ReplayServer) -> None:
    assert (await _failure(replay, Reply(body=b"<html>"))).code == "FETCH_INVALID_OUTPUT"
    missing = await _failure(replay, Reply(body={"success": True, "data": {}}))
    assert missing.code == "FETCH_INVALID_OUTPUT"
    refused = await _failure(replay, Reply(body={"success": False, "error": "boom"}))
    assert refused.code == "FETCH_INVALID_OUTPUT"


async def test_an_answer_over_the_page_cap_is_refused_while_streaming(
    replay: ReplayServer,
) -> None:
    big = {"success": True, "data": {"markdown": "x" * 20_000, "metadata": {}}}
    replay.set(PATH, Reply(body=big))
    with pytest.raises(CapabilityError) as caught:
        await read_page("firecrawl", replay, max_page_bytes=10_000)
    assert caught.value.code == "FETCH_INVALID_OUTPUT"
    assert "10,000 bytes" in caught.value.message


async def test_a_key_echoed_in_an_error_never_reaches_the_message(replay: ReplayServer) -> None:
    body = {"success": False, "error": f"bad request for key {SECRET}"}
    failure = await _failure(replay, Reply(400, body))
    assert failure.code == "FETCH_PROVIDER_REJECTED"
