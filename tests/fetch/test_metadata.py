"""Page metadata: declared fields only, as a short header."""

from __future__ import annotations

from lxml import html as lxml_html

from spyglass.fetch.metadata import Metadata, page_metadata

DECLARED = """<html><head><title>Ignored title tag</title>
<meta property="og:title" content="Kettles compared">
<meta property="og:site_name" content="Kitchen Weekly">
<script type="application/ld+json">{"@context": "https://schema.org", "@type": "NewsArticle",
 "headline": "Kettles compared", "author": {"@type": "Person", "name": "Ada Baker"},
 "datePublished": "2024-05-02T08:00:00Z"}</script>
</head><body><article><p>Text.</p></article></body></html>"""


def test_declared_title_author_date_and_site_are_read() -> None:
    found = page_metadata(lxml_html.document_fromstring(DECLARED), "https://news.example/k")
    assert found.title == "Kettles compared"
    assert found.author == "Ada Baker"
    assert found.published == "2024-05-02"
    assert found.site == "Kitchen Weekly"


def test_the_header_names_only_the_fields_present() -> None:
    assert Metadata(title="T", published="2024-01-01").header() == "Title: T\nPublished: 2024-01-01"
    assert Metadata().header() == ""


def test_a_page_declaring_nothing_has_no_author_or_date() -> None:
    html = "<html><body><p>Just some words on a page.</p></body></html>"
    found = page_metadata(lxml_html.document_fromstring(html), "https://plain.example/")
    assert found.author is None
    assert found.published is None


def test_a_date_only_mentioned_in_the_text_is_not_taken_as_the_publication_date() -> None:
    html = (
        "<html><body><article><p>The depot closed on 12 March 2019 and reopened on "
        "2021-06-01 as a library.</p></article></body></html>"
    )
    found = page_metadata(lxml_html.document_fromstring(html), "https://plain.example/depot")
    assert found.published is None


def test_a_date_declared_by_a_time_element_is_read() -> None:
    html = (
        '<html><body><article><time datetime="2023-11-05T10:00:00" class="entry-date '
        'published">5 November</time><p>Text of the story.</p></article></body></html>'
    )
    found = page_metadata(lxml_html.document_fromstring(html), "https://plain.example/depot")
    assert found.published == "2023-11-05"


def test_the_description_joins_the_header_only_when_asked_for() -> None:
    found = Metadata(title="T", description="What the page is about.")
    assert found.header() == "Title: T"
    assert found.header(described=True) == "Title: T\nDescription: What the page is about."


def test_a_declared_description_is_read_and_a_long_one_cut() -> None:
    words = "Howdy everyone, I am new to astronomy and would like advice on a telescope. " * 20
    html = f'<html><head><meta name="description" content="{words}"></head><body></body></html>'
    found = page_metadata(lxml_html.document_fromstring(html), "https://forum.example/t/1")
    assert found.description is not None
    assert found.description.startswith("Howdy everyone, I am new to astronomy")
    assert len(found.description) <= 600 and found.description.endswith("…")
