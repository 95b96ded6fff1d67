"""Blocks segmented from the page's markup: what a block is, how each is described, and the
reading assembled from the kept ones."""

from __future__ import annotations

import math

import numpy
import pytest
from bench.segments import (
    SEGMENT_FEATURES,
    Segment,
    assemble,
    dom_candidate,
    dom_reading,
    segment_rows,
    segments,
)
from lxml import html as lxml_html

from spyglass.extract.block_markup import Places, text_index

BASE = "https://shop.example/widgets/3000"

PRODUCT = """<html><body>
<header><nav><a href="/">Home</a> <a href="/shop">Shop</a></nav></header>
<main>
<h1>Widget 3000</h1>
<div class="description">A sturdy widget for the <b>home workshop</b>.
<p>It clamps to any bench up to five centimetres thick.</p>
Ships in two days.</div>
<table class="specs">
<tr><th>Weight</th><td>2 kg</td></tr>
<tr><th>Colour</th><td>Red</td></tr>
</table>
<pre class="language-sh">widget --calibrate</pre>
<ul><li>Steel jaws <a href="/jaws">(details)</a></li>
<li>Spare parts<ul><li>Jaw pads</li></ul></li></ul>
<script>var tracking = 1;</script>
<p hidden>Not shown to anyone.</p>
</main>
<footer><p>Copyright Widget Co.</p></footer>
</body></html>"""

LISTING = """<html><body><main><h1>Tools</h1><div class="grid">
<div class="card"><h3><a href="/t/1">Hammer</a></h3><p>12 EUR</p></div>
<div class="card"><h3><a href="/t/2">Saw</a></h3><p>20 EUR</p></div>
<div class="card"><h3><a href="/t/3">Drill</a></h3><p>55 EUR</p></div>
</div><p class="note">Prices include tax.</p></main></body></html>"""


def _body(html: str) -> lxml_html.HtmlElement:
    body = lxml_html.document_fromstring(html).find(".//body")
    assert body is not None
    return body


def _described(found: list[Segment], html_tree: lxml_html.HtmlElement) -> list[dict[str, float]]:
    rows = segment_rows(found, {}, Places(text_index(html_tree), None))
    return [dict(zip(SEGMENT_FEATURES, row.tolist(), strict=True)) for row in rows]


def test_the_body_is_cut_into_its_lowest_blocks_of_text_in_document_order() -> None:
    found = segments(_body(PRODUCT), BASE)
    assert [(s.kind, s.markdown) for s in found] == [
        ("text", "[Home](https://shop.example/) [Shop](https://shop.example/shop)"),
        ("heading", "# Widget 3000"),
        ("text", "A sturdy widget for the home workshop."),
        ("text", "It clamps to any bench up to five centimetres thick."),
        ("text", "Ships in two days."),
        ("row", "| Weight | 2 kg |"),
        ("row", "| Colour | Red |"),
        ("code", "```sh\nwidget --calibrate\n```"),
        ("item", "- Steel jaws [(details)](https://shop.example/jaws)"),
        ("item", "- Spare parts"),
        ("item", "- Jaw pads"),
        ("text", "Copyright Widget Co."),
    ]


def test_text_beside_blocks_is_a_block_of_its_own_marked_as_loose() -> None:
    found = segments(_body(PRODUCT), BASE)
    loose = [s.markdown for s in found if s.loose]
    assert loose == [
        "A sturdy widget for the home workshop.",
        "Ships in two days.",
        "- Spare parts",
    ]


def test_chrome_is_left_out_when_asked_to_skip_it_as_the_region_reader_does() -> None:
    found = segments(_body(PRODUCT), BASE, chrome=False)
    texts = [s.text for s in found]
    assert "Home Shop" not in texts
    assert "Copyright Widget Co." not in texts
    assert "# Widget 3000" in texts


def test_scripts_and_hidden_elements_are_never_blocks() -> None:
    texts = " ".join(s.text for s in segments(_body(PRODUCT), BASE))
    assert "tracking" not in texts
    assert "Not shown" not in texts


def test_kept_rows_of_a_table_are_put_back_together_as_a_markdown_table() -> None:
    found = segments(_body(PRODUCT), BASE)
    keep = [s.kind in ("heading", "row") or s.markdown.startswith("It clamps") for s in found]
    assert assemble(found, keep) == (
        "# Widget 3000\n\nIt clamps to any bench up to five centimetres thick.\n\n"
        "| Weight | 2 kg |\n|---|---|\n| Colour | Red |"
    )


def test_a_single_kept_row_is_read_as_a_line_not_a_table() -> None:
    found = segments(_body(PRODUCT), BASE)
    keep = [s.markdown == "| Colour | Red |" for s in found]
    assert assemble(found, keep) == "Colour Red"


def test_code_keeps_its_fence_and_nothing_kept_gives_nothing() -> None:
    found = segments(_body(PRODUCT), BASE)
    assert assemble(found, [s.kind == "code" for s in found]) == "```sh\nwidget --calibrate\n```"
    assert assemble(found, [False] * len(found)) == ""


def test_the_cards_of_a_grid_are_described_as_repeated_siblings() -> None:
    body = _body(LISTING)
    found = segments(body, "https://shop.example/tools")
    rows = _described(found, body.getroottree().getroot())
    by_text = {s.text: row for s, row in zip(found, rows, strict=True)}
    # The card's title: its own level has no twin, the card two levels up has two.
    assert by_text["### Hammer"]["alike_siblings_0"] == 0.0
    assert by_text["### Hammer"]["alike_siblings_1"] > 0.0
    assert by_text["### Hammer"]["alike_in_page"] == by_text["### Drill"]["alike_in_page"]
    assert by_text["### Hammer"]["alike_in_page"] > by_text["Prices include tax."]["alike_in_page"]
    assert by_text["### Hammer"]["link_density"] == 1.0
    assert by_text["Prices include tax."]["link_density"] == 0.0


def test_blocks_in_page_chrome_are_described_by_how_far_up_it_is() -> None:
    body = _body(PRODUCT)
    found = segments(body, BASE)
    rows = {s.text: row for s, row in zip(found, _described(found, body), strict=True)}
    assert rows["Home Shop"]["up_to_chrome_tag"] == 0.0  # the <nav> itself
    assert rows["Home Shop"]["chrome_tag"] == 1.0
    assert rows["Copyright Widget Co."]["up_to_chrome_tag"] == 1.0  # p -> footer
    assert rows["# Widget 3000"]["up_to_chrome_tag"] == -1.0
    assert rows["# Widget 3000"]["in_main_tag"] == 1.0


def test_a_block_is_described_by_how_much_of_it_each_reading_holds() -> None:
    body = _body(PRODUCT)
    found = segments(body, BASE)
    readings = {"article": "It clamps to any bench up to five centimetres thick.", "region": ""}
    rows = segment_rows(found, readings, Places(text_index(body), None), [7.0, 8.0])
    described = {
        s.text: dict(zip(SEGMENT_FEATURES, row, strict=False))
        for s, row in zip(found, rows, strict=True)
    }
    clamps = described["It clamps to any bench up to five centimetres thick."]
    assert clamps["in_article"] == 1.0
    assert clamps["in_region"] == 0.0
    assert described["Ships in two days."]["in_article"] == 0.0
    # The page's context row ends every block's row.
    assert all(list(row[-2:]) == [7.0, 8.0] for row in rows)
    assert all(len(row) == len(SEGMENT_FEATURES) + 2 for row in rows)


def test_the_dom_reading_keeps_the_blocks_the_model_finds_likely() -> None:
    body = _body(LISTING)
    found = segments(body, "https://shop.example/tools")
    rows = segment_rows(found, {}, Places(text_index(body), None))

    def chances(block_rows: numpy.ndarray) -> list[float]:
        # A stand-in model: links and prices are content, everything else not.
        position = SEGMENT_FEATURES.index("link_density")
        return [0.9 if row[position] > 0.5 else 0.1 for row in block_rows]

    assert dom_reading(found, rows, chances, 0.5) == (
        "### [Hammer](https://shop.example/t/1)\n\n### [Saw](https://shop.example/t/2)\n\n"
        "### [Drill](https://shop.example/t/3)"
    )
    assert dom_reading([], numpy.empty((0, 0)), chances, 0.5) == ""


def test_a_page_whose_blocks_the_model_all_doubts_is_read_whole() -> None:
    body = _body("<html><body><div><span>Price: 12 EUR</span></div></body></html>")
    found = segments(body, "https://shop.example/item")
    rows = segment_rows(found, {}, Places(text_index(body), None))
    assert dom_reading(found, rows, lambda block_rows: [0.1] * len(block_rows), 0.5) == (
        "Price: 12 EUR"
    )


def test_a_product_s_description_and_spec_table_are_assembled_without_its_chrome() -> None:
    body = _body(PRODUCT)
    found = segments(body, BASE)
    rows = segment_rows(found, {}, Places(text_index(body), None))
    chrome = SEGMENT_FEATURES.index("up_to_chrome_tag")

    def chances(block_rows: numpy.ndarray) -> list[float]:
        # A stand-in model that knows one thing: blocks inside page chrome are not content.
        return [0.1 if row[chrome] >= 0 else 0.9 for row in block_rows]

    assert dom_reading(found, rows, chances, 0.5) == (
        "# Widget 3000\n\n"
        "A sturdy widget for the home workshop.\n\n"
        "It clamps to any bench up to five centimetres thick.\n\n"
        "Ships in two days.\n\n"
        "| Weight | 2 kg |\n|---|---|\n| Colour | Red |\n\n"
        "```sh\nwidget --calibrate\n```\n\n"
        "- Steel jaws [(details)](https://shop.example/jaws)\n\n"
        "- Spare parts\n\n"
        "- Jaw pads"
    )


NESTED = """<html><body><main>
<div class="post"><div class="links">
<p>See <a href="/a">the first guide</a> and read on.</p>
<p><a href="/b">Second guide</a></p>
<p>Plain words with no link at all here.</p>
</div><p>Closing words.</p></div>
<div class="post"><p>Another post.</p></div>
</main></body></html>"""


def _density(element: lxml_html.HtmlElement) -> float:
    """Link density as the feature defines it, read the slow way: every link's text."""
    length = len(element.text_content().strip())
    linked = sum(len(a.text_content().strip()) for a in element.iter("a"))
    return min(1.0, linked / length) if length else 0.0


def test_the_link_density_around_a_block_counts_the_links_of_its_parent_and_grandparent() -> None:
    body = _body(NESTED)
    found = segments(body, BASE)
    rows = _described(found, body)
    assert [s.text for s in found][:3] == [
        "See the first guide and read on.",
        "Second guide",
        "Plain words with no link at all here.",
    ]
    for segment, row in zip(found, rows, strict=True):
        parent = segment.element.getparent()
        assert row["parent_link_density"] == _density(parent)
        assert row["grandparent_link_density"] == _density(parent.getparent())
    # The links' box holds two links among its words, the post around it one more paragraph.
    assert 0.0 < rows[0]["parent_link_density"] < 1.0
    assert rows[0]["grandparent_link_density"] < rows[0]["parent_link_density"]


def test_siblings_alike_are_counted_at_the_block_s_level_and_the_two_above() -> None:
    body = _body(NESTED)
    found = segments(body, BASE)
    rows = {s.text: row for s, row in zip(found, _described(found, body), strict=True)}
    plain = rows["Plain words with no link at all here."]
    # Three paragraphs in the links' box; the box alone in its post; two posts in <main>.
    assert plain["alike_siblings_0"] == pytest.approx(math.log1p(2))
    assert plain["alike_siblings_1"] == 0.0
    assert plain["alike_siblings_2"] == pytest.approx(math.log1p(1))
    another = rows["Another post."]
    assert another["alike_siblings_0"] == 0.0
    assert another["alike_siblings_1"] == pytest.approx(math.log1p(1))


def test_the_dom_candidate_is_finished_as_the_other_readings_are() -> None:
    body = _body(
        "<html><body><main><p>Buy <a href='/x'>the widget</a> today, it is good.</p>"
        "<p>Buy the widget today, it is good.</p><p>Made in Oslo.</p></main></body></html>"
    )
    found = dom_candidate(
        body, BASE, {}, Places(text_index(body), None), [], lambda rows: [0.9] * len(rows), 0.5
    )
    # Links absolute, the repeated line dropped, as candidates.finish does for every reading.
    assert found == ("Buy [the widget](https://shop.example/x) today, it is good.\n\nMade in Oslo.")
