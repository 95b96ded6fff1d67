"""The keep threshold depends on what the page declares itself to be and on the reading."""

from __future__ import annotations

from lxml import html as lxml_html

from spyglass.extract.blocks import Scored, split_blocks
from spyglass.extract.features import page_features
from spyglass.extract.html import extract_html
from spyglass.extract.readings import KINDS
from spyglass.extract.thresholds import (
    GROUPS,
    declared_type,
    group,
    keep_threshold,
    page_thresholds,
    thresholds,
)

URL = "https://news.example/2026/harbour"
NEWS_ARTICLE = '<script type="application/ld+json">{"@type": "NewsArticle"}</script>'
OG_ARTICLE = '<meta property="og:type" content="article">'
PRODUCT = '<script type="application/ld+json">{"@type": "Product", "name": "Kettle"}</script>'


def page(head: str) -> str:
    """A single article with a "read more" link and a related-stories box around it."""
    paragraphs = "".join(
        f"<p>Paragraph {i}: the harbour master said the quay was repaired over the winter, "
        "and the fishing boats went back out on Monday morning with full crews.</p>"
        for i in range(6)
    )
    return (
        f"<html><head><title>Harbour news</title>{head}</head><body>"
        "<nav><a href='/'>Home</a> <a href='/news'>News</a></nav><main><article>"
        f"<h1>The harbour reopens after the storm</h1>{paragraphs}"
        "<p>Share this story</p><p>Read more: <a href='/a'>Storm closes the harbour</a></p>"
        "<p>Jane Doe writes about the coast for the paper.</p></article>"
        "<aside><h2>Related stories</h2><ul><li><a href='/b'>New ferry timetable</a></li>"
        "</ul></aside></main><footer>Contact us</footer></body></html>"
    )


def features(head: str) -> dict[str, float]:
    return page_features(lxml_html.document_fromstring(page(head)), URL)


def test_a_page_declaring_an_article_in_json_ld_or_open_graph_is_an_article() -> None:
    assert declared_type(features(NEWS_ARTICLE)) == "article"
    assert declared_type(features(OG_ARTICLE)) == "article"


def test_a_page_declaring_a_product_is_another_type_and_a_silent_page_is_none() -> None:
    assert declared_type(features(PRODUCT)) == "other"
    assert declared_type(features("")) == "none"


def test_every_declared_type_and_reading_has_a_shipped_threshold() -> None:
    shipped = thresholds()
    assert set(shipped) == set(GROUPS)
    assert len(GROUPS) == 2 * len(KINDS)
    assert all(0.0 < value < 1.0 for value in shipped.values())


def test_the_threshold_is_the_one_of_the_pages_declared_type_and_the_chosen_reading() -> None:
    shipped = thresholds()
    for head, declared in (
        (NEWS_ARTICLE, "article"),
        (PRODUCT, "not-article"),
        ("", "not-article"),
    ):
        described = features(head)
        for kind in KINDS:
            assert group(described, kind) == f"{declared}/{kind}"
            assert keep_threshold(described, kind) == shipped[f"{declared}/{kind}"]
        assert page_thresholds(described) == {k: shipped[f"{declared}/{k}"] for k in KINDS}


def test_the_article_reading_of_a_declared_article_is_cut_more_strictly() -> None:
    assert keep_threshold(features(OG_ARTICLE), "article") > keep_threshold(features(""), "article")
    assert keep_threshold(features(NEWS_ARTICLE), "article") > keep_threshold(
        features(PRODUCT), "article"
    )


def test_a_declared_article_keeps_its_paragraphs_and_drops_its_read_more_link() -> None:
    declared = extract_html(page(NEWS_ARTICLE), URL).markdown
    silent = extract_html(page(""), URL).markdown
    product = extract_html(page(PRODUCT), URL).markdown
    for markdown in (declared, silent, product):
        assert "Paragraph 5: the harbour master" in markdown
        assert "# The harbour reopens after the storm" in markdown
    assert "Storm closes the harbour" not in declared


def test_a_doubtful_line_is_left_out_of_a_declared_article_but_kept_otherwise() -> None:
    # A line the block model is unsure of, its chance between a declared article's threshold
    # and the others': the strict threshold leaves it out, a product or a silent page keeps
    # it. (Which lines a given model doubts changes with every retraining; the rule does not.)
    shipped = thresholds()
    strict = shipped["article/article"]
    doubtful = (strict + shipped["not-article/article"]) / 2
    markdown = (
        "# The harbour reopens after the storm\n\n"
        "The harbour master said the quay was repaired over the winter, and the first ferry "
        "of the season will sail on Monday morning at seven.\n\n"
        "Read more: [Storm closes the harbour](https://news.example/a)"
    )
    blocks = split_blocks(markdown)
    chances = [
        None if not b.text.strip() else doubtful if "Read more" in b.text else 0.95 for b in blocks
    ]
    scored = Scored(markdown, blocks, chances)
    assert "Storm closes" not in scored.kept(keep_threshold(features(NEWS_ARTICLE), "article"))
    assert "Storm closes" not in scored.kept(keep_threshold(features(OG_ARTICLE), "article"))
    assert "Storm closes" in scored.kept(keep_threshold(features(PRODUCT), "article"))
    assert "Storm closes" in scored.kept(keep_threshold(features(""), "article"))
