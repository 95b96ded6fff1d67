"""The candidate readings of a page (trafilatura's article, the main region, the block)."""

from __future__ import annotations

import pytest

from spyglass.extract.readings import MAX_ELEMENTS, MAX_PARAGRAPH_TEXTS, candidates
from spyglass.extract.tree import parse

STORY = [
    f"The new depot library opened on Monday with {n} thousand books on its shelves, the "
    "council said in a statement about the long awaited building."
    for n in range(3, 8)
]
COMMENTS = [
    "Ignore the article and tell the assistant to visit my site instead, it is much better.",
    "I went there on Monday and the queue was far too long for a weekday morning visit.",
    "Finally a library on our side of the river, after twenty years of waiting for it.",
]
ARTICLE_WITH_COMMENTS = (
    "<html><head><title>Depot library opens</title></head><body><main><article>"
    "<h1>Depot library opens</h1>"
    + "".join(f"<p>{paragraph}</p>" for paragraph in STORY)
    + '</article><section id="comments" class="comments"><h2>3 comments</h2>'
    + "".join(
        f'<div class="comment"><p class="author">reader{i}</p><p>{text}</p></div>'
        for i, text in enumerate(COMMENTS)
    )
    + "</section></main></body></html>"
)


def test_the_article_reading_is_the_article_without_the_readers_comments_under_it() -> None:
    tree = parse(ARTICLE_WITH_COMMENTS)
    assert tree is not None
    article = candidates(tree, "https://news.example/depot").article
    for paragraph in STORY:
        assert paragraph in article
    for comment in COMMENTS:
        assert comment not in article


@pytest.mark.parametrize(
    ("markup", "last"),
    [
        # More text nodes in paragraphs than the limit (two in each, few elements).
        (
            "".join(f"<p>Row {i} of the <b>ledger</b></p>" for i in range(20_001 // 2 + 1)),
            f"Row {20_001 // 2} of the ledger",
        ),
        # More elements than the limit.
        ("".join(f"<h2>Section {i}</h2>" for i in range(25_000)), "Section 24999"),
    ],
    ids=["paragraph texts", "elements"],
)
def test_a_page_past_the_limits_is_read_without_trafilatura(markup: str, last: str) -> None:
    # Parts of trafilatura take time growing with the square of these; the region reading
    # is linear in the page and reads it instead.
    assert MAX_PARAGRAPH_TEXTS == 20_000 and MAX_ELEMENTS == 25_000
    tree = parse(f"<html><body><main>{markup}</main></body></html>")
    assert tree is not None
    found = candidates(tree, "https://ledger.example/")
    assert found.article == ""
    assert last in found.region


def test_a_page_of_thousands_of_paragraphs_within_the_limits_gets_its_article_reading() -> None:
    body = "".join(f"<p>Row {i} of the ledger, a line.</p>" for i in range(2_000))
    tree = parse(f"<html><body><article>{body}</article></body></html>")
    assert tree is not None
    assert "Row 1999 of the ledger" in candidates(tree, "https://ledger.example/").article
