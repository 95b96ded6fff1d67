"""A read page kept in the turn's page cache comes back as it was; an unreadable one does not."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from spyglass.extract import Document
from spyglass.fetch.page import ReadPage, from_bytes, to_bytes

PAGE = ReadPage(
    url="http://example.com/a",
    final_url="http://www.example.com/a",
    status=200,
    content_type="text/html",
    document=Document("Tides", "High water at noon. 😀"),
    redirected=False,
    redirect_chain=("http://www.example.com/a",),
    retrieved_at="2026-01-01T00:00:00Z",
    cut_at_bytes=5_000_000,
)


def test_a_kept_page_comes_back_as_read_with_who_read_it() -> None:
    assert from_bytes(to_bytes(PAGE, "direct")) == (PAGE, "direct")
    untitled = replace(PAGE, document=Document(None, ""), cut_at_bytes=None)
    assert from_bytes(to_bytes(untitled, "jina")) == (untitled, "jina")


@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b"\xff\xfe not utf-8",
        b"not json",
        b"[1, 2]",
        b"[" * 100_000,
        json.dumps({"url": "http://example.com/a"}).encode(),
        to_bytes(PAGE, "direct").replace(b'"status":200', b'"status":"two hundred"'),
        to_bytes(PAGE, "direct").replace(b'"title":"Tides"', b'"title":{"a":1}'),
    ],
)
def test_an_entry_that_cannot_be_read_is_a_miss_not_a_failure(raw: bytes) -> None:
    assert from_bytes(raw) is None
