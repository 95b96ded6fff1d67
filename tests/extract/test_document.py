"""Page bytes of each readable type become what the model reads: Markdown, JSON, PDF text."""

from __future__ import annotations

import json

import pytest

from spyglass.errors import CapabilityError
from spyglass.extract import MediaType, to_document
from tests.support.documents import pdf_with_text

URL = "http://example.com/"
ARTICLE = (
    "<html><head><title>Article</title></head><body><nav><a href='/'>Home</a></nav>"
    "<article><h1>Heading</h1>"
    + "".join(
        f"<p>Paragraph {n} with several words in it, one more part of it.</p>" for n in range(20)
    )
    + "</article></body></html>"
)
RUSSIAN = "Съешь же ещё этих мягких французских булок, да выпей чаю. " * 30
JAPANESE = "吾輩は猫である。名前はまだ無い。どこで生れたかとんと見当がつかぬ。" * 30


def read(body: str | bytes, content_type: str) -> tuple[str | None, str]:
    data = body.encode("utf-8") if isinstance(body, str) else body
    document = to_document(data, MediaType.parse(content_type), URL)
    return document.title, document.text


def test_html_becomes_markdown_with_title_and_headings() -> None:
    title, text = read(ARTICLE, "text/html; charset=utf-8")
    assert title == "Article"
    assert "# Heading" in text
    assert "Paragraph 3 with several words in it" in text


def test_an_undeclared_windows_1251_page_reads_correctly() -> None:
    html = f"<html><body><p>{RUSSIAN}</p></body></html>".encode("windows-1251")
    assert "французских булок" in read(html, "text/html")[1]


def test_an_undeclared_shift_jis_page_reads_correctly() -> None:
    html = f"<html><body><p>{JAPANESE}</p></body></html>".encode("shift_jis")
    assert "吾輩は猫である" in read(html, "text/html")[1]


def test_a_meta_charset_is_used_when_the_header_has_none() -> None:
    html = (
        '<html><head><meta charset="koi8-r"></head><body><p>' + RUSSIAN + "</p></body></html>"
    ).encode("koi8-r")
    assert "французских булок" in read(html, "text/html")[1]


def test_the_header_charset_wins_over_the_meta_tag() -> None:
    html = (
        '<html><head><meta charset="utf-8"></head><body><p>' + RUSSIAN + "</p></body></html>"
    ).encode("windows-1251")
    assert "французских булок" in read(html, "text/html; charset=windows-1251")[1]


def test_json_is_pretty_printed() -> None:
    body = json.dumps({"b": [1, 2], "a": {"ключ": "значение"}})
    assert read(body, "application/json")[1] == json.dumps(
        json.loads(body), indent=2, ensure_ascii=False
    )


@pytest.mark.parametrize("kind", ["text/plain", "text/markdown"])
def test_plain_text_and_markdown_pass_through_unchanged(kind: str) -> None:
    text = "# Title\n\n- one\n- two\n"
    assert read(text, f"{kind}; charset=utf-8") == (None, text)


def test_a_charset_no_browser_knows_does_not_stop_the_page_from_being_read() -> None:
    # Python's "rot13" codec is no text encoding: decoding by it raised before the page was
    # read. A browser ignores the label, and so does the reading.
    assert "Article" in (read(ARTICLE, "text/html; charset=rot13")[0] or "")
    assert read("plain words, as sent", "text/plain; charset=undefined")[1] == (
        "plain words, as sent"
    )


def test_pdf_text_and_title_are_extracted() -> None:
    pdf = pdf_with_text(["Quarterly report", "Revenue grew by ten percent."], title="Report")
    title, text = read(pdf, "application/pdf")
    assert title == "Report"
    assert "Revenue grew by ten percent." in text


def test_a_damaged_pdf_is_reported_not_raised() -> None:
    with pytest.raises(CapabilityError) as caught:
        read(b"%PDF-1.4\nnot really", "application/pdf")
    assert caught.value.code == "FETCH_UNSUPPORTED_CONTENT"


def test_json_nested_deeper_than_python_reads_is_returned_as_received() -> None:
    body = b"[" * 100_000 + b"]" * 100_000
    assert read(body, "application/json")[1] == body.decode()


def test_a_pdf_that_breaks_the_parser_is_reported_as_unreadable_not_raised() -> None:
    # A reference where a content stream holds operators: pypdf fails an assertion on it.
    damaged = pdf_with_text(["Quarterly report"]).replace(b"BT\n", b"BT\n9 0 R\n", 1)
    with pytest.raises(CapabilityError) as caught:
        read(damaged, "application/pdf")
    assert caught.value.code == "FETCH_UNSUPPORTED_CONTENT"
    assert "could not be read" in caught.value.message
