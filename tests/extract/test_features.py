"""The chooser's rows: each reading described once, however many rows are built of it; the
page's own features, from the address the page declares."""

from __future__ import annotations

import math
import tracemalloc

from lxml import html as lxml_html

from spyglass.extract.features import candidate_features, page_features, reading_rows
from spyglass.extract.links import link_label_chars, without_targets

PAGE = {"links": 1.5, "paragraphs": 2.0}
TEXTS = {
    "article": "# Title\n\nA long paragraph of the article, with [a link](https://a.example/).",
    "region": "- [Home](https://a.example/)\n\n# Title\n\nA long paragraph of the article.",
    "block": "A long paragraph of the article.",
}


def test_rows_of_one_more_reading_reuse_what_was_said_of_the_others() -> None:
    described: dict[str, tuple[dict[str, float], set[str]]] = {}
    three = reading_rows(PAGE, TEXTS, described)
    assert set(described) == set(TEXTS.values())
    kept = {text: id(entry) for text, entry in described.items()}
    four = reading_rows(PAGE, {**TEXTS, "dom": "Title\n\nA long paragraph."}, described)
    # The three readings were not described again; the fourth was added.
    assert all(id(described[text]) == entry for text, entry in kept.items())
    assert len(described) == 4
    # The same rows as built from nothing.
    assert three == reading_rows(PAGE, TEXTS)
    assert four == reading_rows(PAGE, {**TEXTS, "dom": "Title\n\nA long paragraph."})
    assert len(four) == 4 and len(four[0]) > len(three[0])


SHARED = {
    "article": "# Title\n\nA [link](https://a.example/x) and [text](not a target) here.\n  \n[open",
    "region": "- [Home](https://a.example/)\n\n# Title\n\nA [link](https://a.example/x) and more.",
    "block": "A [link](https://a.example/x) and [text](not a target) here.",
}


def test_readings_that_share_lines_are_each_described_as_their_whole_text_would_be() -> None:
    rows = reading_rows(PAGE, SHARED)
    for row, text in zip(rows, SHARED.values(), strict=True):
        own = candidate_features(text)
        assert row[1 : 1 + len(own)] == list(own.values())
        # Lines are counted one at a time and reused across readings; the figures are those
        # of the reading's whole text.
        visible = without_targets(text)
        assert own["chars"] == math.log1p(len(visible))
        assert own["link_density"] == link_label_chars(text) / len(visible)


def _page(head: str) -> lxml_html.HtmlElement:
    body = "<body><article><h1>Kettle</h1><p>A kettle that boils fast.</p></article></body>"
    return lxml_html.document_fromstring(f"<html><head>{head}</head>{body}</html>")


def test_a_copy_served_elsewhere_is_described_by_the_address_it_declares() -> None:
    canonical = '<link rel="canonical" href="https://shop.example/products/kettle-2000">'
    original = page_features(_page(""), "https://shop.example/products/kettle-2000")
    copy = page_features(_page(canonical), "http://mirror.example/0042.html")
    assert copy == original
    assert copy["path_product"] == 1.0 and copy["path_depth"] == 2.0


def test_the_canonical_link_wins_over_og_url_and_a_relative_one_is_joined() -> None:
    head = (
        '<meta property="og:url" content="https://forum.example/t/kettles/7">'
        '<link rel="canonical" href="/products/kettle">'
    )
    features = page_features(_page(head), "http://mirror.example/copy")
    assert features["path_product"] == 1.0 and features["path_forum"] == 0.0


def test_without_a_usable_declared_address_the_fetched_one_describes_the_page() -> None:
    head = '<link rel="canonical" href="http://[broken"><meta property="og:url" content="ftp://x/">'
    features = page_features(_page(head), "https://forum.example/t/kettles/7")
    assert features["path_forum"] == 1.0


def test_the_page_is_described_by_what_its_elements_are_and_say_of_themselves() -> None:
    body = (
        '<body><div role="main" itemscope itemtype="https://schema.org/Product">'
        '<h1 itemprop="name">Kettle</h1><p>Boils fast.</p><p>Two litres.</p>'
        '<a href="/buy">Buy</a><a name="top">Top</a>'
        '<section id="comments"><div class="comment-body">Nice.</div></section>'
        '<main><div class="reviews">None yet.</div></main></div></body>'
    )
    tree = lxml_html.document_fromstring(f"<html><head></head>{body}</html>")
    features = page_features(tree, "https://shop.example/kettle")
    counted = {
        "links": 1,  # the one with an address
        "itemprops": 1,
        "comments_named": 2,  # by id and by class
        "mains": 2,  # <main>, and role="main" on another element
        "paragraphs": 2,
        "h1": 1,
    }
    assert {name: features[name] for name in counted} == {
        name: math.log1p(count) for name, count in counted.items()
    }
    assert features["ld_product"] == 1.0


def test_a_lines_words_are_counted_as_shown_though_lower_case_would_split_them() -> None:
    # "İ" lower-cases to "i" and a combining dot, which splits the word in two.
    features = candidate_features("İstanbul İzmir Ankara")
    assert features["mean_words"] == math.log1p(3)
    assert candidate_features("Istanbul, Izmir and Ankara.")["mean_words"] == math.log1p(4)


def test_a_page_long_line_is_described_without_holding_a_list_of_its_words() -> None:
    line = "A sentence of a paragraph that goes on to the size cap. " * 40_000
    tracemalloc.start()
    try:
        features = candidate_features(line)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert features["mean_words"] == math.log1p(12 * 40_000)
    # Its 480,000 words as one list of strings took about 30 MB; the line is 2.2 MB.
    assert peak < 4 * len(line)
