"""Responses: caps with bounded memory, deadlines, content types, statuses; bytes as sent."""

from __future__ import annotations

import gzip
import threading
import time
import tracemalloc
from collections.abc import Iterator

import pytest

from spyglass.errors import CapabilityError
from spyglass.extract import Document, to_document
from spyglass.fetch.fetcher import FetchConfig, FetchedPage, Fetcher
from tests.support.documents import pdf_with_text
from tests.support.fetch_peers import (
    MappedDialler,
    Peer,
    Route,
    StaticResolver,
    drip,
    endless,
    gzip_bomb,
    page,
)

PUBLIC = "93.184.215.30"
ARTICLE = (
    "<html><head><title>Article</title></head><body><nav><a href='/'>Home</a></nav>"
    "<article><h1>Heading</h1>"
    + "".join(
        f"<p>Paragraph {n} with several words in it, one more part of it.</p>" for n in range(20)
    )
    + "</article></body></html>"
)


@pytest.fixture
def stop() -> Iterator[threading.Event]:
    event = threading.Event()
    yield event
    event.set()


async def fetch_from(routes: dict[str, Route], path: str = "/", **config: object) -> FetchedPage:
    with Peer(routes) as peer:
        resolver = StaticResolver({"example.com": [PUBLIC]})
        dialler = MappedDialler({PUBLIC: peer.address})
        async with Fetcher(FetchConfig(**config), resolver, dialler) as fetcher:  # type: ignore[arg-type]
            return await fetcher.fetch(f"http://example.com{path}")


def read(fetched: FetchedPage) -> Document:
    """What the model reads of ``fetched`` (the fetcher only downloads)."""
    return to_document(fetched.body, fetched.media, fetched.final_url)


async def failure(routes: dict[str, Route], **config: object) -> CapabilityError:
    with pytest.raises(CapabilityError) as caught:
        await fetch_from(routes, **config)
    return caught.value


async def test_an_endless_body_is_read_up_to_the_cap_with_bounded_memory() -> None:
    tracemalloc.start()
    try:
        fetched = await fetch_from({"/": endless("text/plain")}, max_page_bytes=2_000_000)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert fetched.cut_at_bytes == 2_000_000
    assert 0 < len(fetched.body) <= 2_000_000
    assert peak < 12_000_000


async def test_a_gzip_bomb_is_cut_at_the_cap_counted_after_decompression() -> None:
    bomb = gzip_bomb(64_000_000, "text/plain")
    tracemalloc.start()
    try:
        fetched = await fetch_from({"/": bomb}, max_page_bytes=1_000_000)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert fetched.cut_at_bytes == 1_000_000
    assert peak < 12_000_000


async def test_an_article_over_the_cap_keeps_its_beginning_and_is_marked_cut() -> None:
    long_article = (
        "<html><head><title>Long article</title></head><body><article><h1>Long article</h1>"
        "<p>The answer is in the first paragraph.</p>"
        + "<p>More paragraphs follow with several words in each one.</p>" * 5000
        + "<p>The very last paragraph.</p></article></body></html>"
    )
    fetched = await fetch_from({"/": page(long_article)}, max_page_bytes=50_000)
    assert fetched.cut_at_bytes == 50_000
    document = read(fetched)
    assert document.title == "Long article"
    assert "The answer is in the first paragraph." in document.text
    assert "The very last paragraph." not in document.text


async def test_a_page_under_the_cap_is_not_marked_cut() -> None:
    fetched = await fetch_from({"/": page(ARTICLE)}, max_page_bytes=len(ARTICLE))
    assert fetched.cut_at_bytes is None


async def test_a_pdf_over_its_cap_is_refused_because_a_cut_pdf_cannot_be_read() -> None:
    body = pdf_with_text(["A document that is too large for the cap."])
    error = await failure({"/": page(body, "application/pdf")}, max_pdf_bytes=len(body) - 1)
    assert error.code == "FETCH_TOO_LARGE"
    assert "fetch.max_pdf_bytes" in error.message


async def test_a_gzip_body_under_the_cap_is_decoded() -> None:
    body = gzip.compress(ARTICLE.encode())
    fetched = await fetch_from(
        {"/": page(body, "text/html; charset=utf-8", headers={"Content-Encoding": "gzip"})}
    )
    assert fetched.body == ARTICLE.encode()


async def test_an_unrequested_compression_is_refused() -> None:
    error = await failure({"/": page(b"\x00\x01", "text/html", headers={"Content-Encoding": "br"})})
    assert error.code == "FETCH_UNSUPPORTED_CONTENT"


async def test_a_slow_drip_hits_the_total_deadline(stop: threading.Event) -> None:
    started = time.monotonic()
    error = await failure({"/": drip(stop, every=0.1)}, timeout_seconds=1.0)
    assert error.code == "TIMEOUT"
    assert error.retryable
    assert time.monotonic() - started < 5


async def test_a_wrong_content_type_is_refused_before_the_body_is_read(
    stop: threading.Event,
) -> None:
    # The body never ends: reading any of it would run into the deadline instead.
    started = time.monotonic()
    error = await failure(
        {"/": drip(stop, every=0.1, content_type="image/png")}, timeout_seconds=5.0
    )
    assert error.code == "FETCH_UNSUPPORTED_CONTENT"
    assert "image/png" in error.message
    assert time.monotonic() - started < 4


@pytest.mark.parametrize(
    ("status", "retryable"), [(404, False), (403, False), (503, True), (429, True)]
)
async def test_an_error_status_is_reported_with_the_status(status: int, retryable: bool) -> None:
    error = await failure({"/": page("nope", "text/plain", status=status)})
    assert error.code == "FETCH_HTTP_ERROR"
    assert str(status) in error.message
    assert error.retryable is retryable


async def test_the_request_carries_the_configured_user_agent_and_safe_encodings() -> None:
    with Peer({"/": page(ARTICLE)}) as peer:
        dialler = MappedDialler({PUBLIC: peer.address})
        config = FetchConfig(user_agent="Spyglass/9 (+https://example.org)")
        async with Fetcher(config, StaticResolver({"example.com": [PUBLIC]}), dialler) as f:
            await f.fetch("http://example.com/")
    sent = peer.headers[0]
    assert sent["User-Agent"] == "Spyglass/9 (+https://example.org)"
    assert "br" not in sent["Accept-Encoding"]
    assert "Cookie" not in sent


async def test_a_page_comes_back_as_sent_with_its_media_type_for_reading() -> None:
    fetched = await fetch_from({"/": page(ARTICLE, "text/html; charset=windows-1251")})
    assert fetched.body == ARTICLE.encode()
    assert (fetched.media.essence, fetched.media.charset) == ("text/html", "windows-1251")
    assert fetched.content_type == "text/html"
    assert fetched.final_url == "http://example.com/" and not fetched.redirected
    assert read(fetched).title == "Article"


async def test_plain_text_and_markdown_come_back_as_sent_with_their_type() -> None:
    text = "# Title\n\n- one\n- two\n"
    for kind in ("text/plain", "text/markdown"):
        fetched = await fetch_from({"/": page(text, f"{kind}; charset=utf-8")})
        assert fetched.body == text.encode()
        assert fetched.content_type == kind


async def test_a_pdf_is_read_whole() -> None:
    pdf = pdf_with_text(["Quarterly report", "Revenue grew by ten percent."], title="Report")
    fetched = await fetch_from({"/": page(pdf, "application/pdf")})
    assert fetched.content_type == "application/pdf"
    assert read(fetched).title == "Report"


async def test_a_pdf_has_its_own_larger_cap() -> None:
    pdf = pdf_with_text(["x" * 50] * 40)
    fetched = await fetch_from(
        {"/": page(pdf, "application/pdf")}, max_page_bytes=500, max_pdf_bytes=1_000_000
    )
    assert fetched.body == pdf and fetched.cut_at_bytes is None


async def test_a_body_without_content_type_is_sniffed() -> None:
    fetched = await fetch_from({"/": page(ARTICLE, None)})
    assert fetched.content_type == "text/html"
    binary = await failure({"/": page(b"\x89PNG\r\n\x1a\n\x00\x00", None)})
    assert binary.code == "FETCH_UNSUPPORTED_CONTENT"
