"""Where a reading's blocks sit in the page: found again by their first words, described
by the boxes around them."""

from __future__ import annotations

import math
import tracemalloc

from lxml import html as lxml_html

from spyglass.extract.block_markup import PLACE_FEATURES, Places, find, text_index

PAGE = """<html><body>
<main><article><div class="entry-content">
<p>The council voted on Tuesday to turn the old depot into a library.</p>
<p>Read this: <a href="/more">the full decision</a> on the council's site today.</p>
</div>
<section class="related-posts"><ul>
<li><a href="/a">Depot protest draws a large crowd downtown</a></li>
</ul></section>
</article></main>
</body></html>"""


def _row(places: Places, markdown: str) -> dict[str, float]:
    return dict(zip(PLACE_FEATURES, places.row(markdown), strict=True))


def test_a_paragraph_is_found_inside_the_article_and_the_body_box() -> None:
    tree = lxml_html.document_fromstring(PAGE)
    places = Places(text_index(tree), None)
    row = _row(places, "The council voted on Tuesday to turn the old depot into a library.")
    assert row["found_in_tree"] == 1.0
    assert row["in_article_tag"] == 1.0
    assert row["in_main_tag"] == 1.0
    assert row["in_content_block"] == 0.0
    assert row["up_to_body"] == 1.0  # the <p>'s parent is named entry-content
    assert row["up_to_related"] == -1.0


def test_a_teaser_link_is_placed_under_the_related_box_by_its_distance() -> None:
    tree = lxml_html.document_fromstring(PAGE)
    container = tree.xpath("//article")[0]
    places = Places(text_index(tree), container)
    row = _row(places, "- [Depot protest draws a large crowd downtown](https://x.example/a)")
    assert row["up_to_related"] == 2.0  # li -> ul -> section.related-posts
    assert row["in_content_block"] == 1.0
    assert row["owner_link_density"] == 1.0


def test_a_block_starting_across_a_link_is_found_by_its_longest_known_start() -> None:
    tree = lxml_html.document_fromstring(PAGE)
    found = find(text_index(tree), "Read this: the full decision on the council's site today.")
    assert found is not None
    assert found.tag == "p"


def test_a_block_the_page_does_not_contain_has_unknown_places() -> None:
    places = Places(text_index(lxml_html.document_fromstring(PAGE)), None)
    row = places.row("Words that appear nowhere on this page at all")
    assert row[0] == 0.0
    assert all(math.isnan(value) for value in row[1:])


def test_reviews_and_a_products_offer_are_kinds_of_box_of_their_own() -> None:
    tree = lxml_html.document_fromstring(
        "<html><body><main><h1>Kettle</h1>"
        '<div class="price-box"><p>Now only 29 euros with free delivery today</p></div>'
        '<section class="customer-reviews"><ul>'
        "<li><p>Boils quickly and quietly, very happy with it</p></li></ul></section>"
        "</main></body></html>"
    )
    places = Places(text_index(tree), None)
    offer = _row(places, "Now only 29 euros with free delivery today")
    review = _row(places, "Boils quickly and quietly, very happy with it")
    assert (offer["up_to_offer"], offer["up_to_review"]) == (1.0, -1.0)
    # p -> li -> ul -> section.customer-reviews
    assert (review["up_to_review"], review["up_to_offer"]) == (3.0, -1.0)


def test_the_text_index_holds_each_text_by_its_element_and_the_first_of_a_repeat_wins() -> None:
    tree = lxml_html.document_fromstring(
        "<html><body><div id='box'>"
        "<p id='para'>Opening words of it<!-- a note -->closing words after the note</p>"
        "<span id='outer'>x <i id='inner'>words said twice here</i></span>"
        "words said twice here"
        "</div></body></html>"
    )
    index = text_index(tree)
    # A text after a comment is its parent's; a tail follows all that is inside its element,
    # so the repeat inside the span comes first.
    assert index["closing words after the note"].get("id") == "para"
    assert index["words said twice here"].get("id") == "inner"
    assert index["opening words of it"].get("id") == "para"
    assert "a note" not in index


def _nested_page(nests: int, depth: int) -> lxml_html.HtmlElement:
    nest = "<div class='related'>" + "<div>" * depth + "Text {n} of a nest." + "</div>" * depth
    body = "".join(nest.format(n=n) + "</div>" for n in range(nests))
    return lxml_html.document_fromstring(f"<html><body><article>{body}</article></body></html>")


def test_blocks_deep_in_nests_are_placed_as_a_fresh_reader_places_each_one() -> None:
    tree = _nested_page(nests=20, depth=60)
    index = text_index(tree)
    places = Places(index, None)
    rows = [places.row(f"Text {n} of a nest.") for n in range(20)]
    for n in (0, 7, 19):
        assert rows[n] == Places(index, None).row(f"Text {n} of a nest.")
    depth = PLACE_FEATURES.index("depth")
    assert {row[depth] for row in rows} == {rows[0][depth]} and rows[0][depth] > 60


def test_placing_blocks_deep_in_nests_keeps_little_of_the_walk_alive() -> None:
    tree = _nested_page(nests=200, depth=200)
    index = text_index(tree)
    places = Places(index, None)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for n in range(200):
            places.row(f"Text {n} of a nest.")
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    # Every element's chain kept (40,000 elements) held about 5 MB.
    assert kept < 1_000_000
