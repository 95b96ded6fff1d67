"""The element enclosing an extraction's paragraphs: deepest one, found by their starts."""

from __future__ import annotations

from lxml import html as lxml_html

from spyglass.extract.article_container import content_container

PAGE = """<html><body>
<div id="menu"><p>Welcome to the shop where everything is on sale today only</p></div>
<div id="product">
  <div id="description">
    <p>This steel kettle boils a litre of water in under three minutes flat.</p>
    <p>The handle stays cool and the lid opens with one press of a button.</p>
  </div>
  <ul id="specs"><li>Capacity: 1.7 l</li><li>Power: 2200 W</li></ul>
</div>
</body></html>"""

EXTRACTED = (
    "This steel kettle boils a litre of water in under three minutes flat.\n\n"
    "The handle stays cool and the lid opens with [one press](https://x.example/) of a button."
)


def test_the_deepest_element_holding_all_extracted_paragraphs_is_returned() -> None:
    tree = lxml_html.document_fromstring(PAGE)
    found = content_container(tree, EXTRACTED)
    assert found is not None
    assert found.get("id") == "description"


def test_paragraphs_in_different_blocks_lead_to_their_common_ancestor() -> None:
    tree = lxml_html.document_fromstring(PAGE)
    extracted = EXTRACTED + "\n\nWelcome to the shop where everything is on sale today only"
    found = content_container(tree, extracted)
    assert found is not None
    assert found.tag == "body"


def test_text_that_matches_no_paragraph_gives_none() -> None:
    tree = lxml_html.document_fromstring(PAGE)
    assert (
        content_container(tree, "A sentence that is nowhere on this page at all, really.") is None
    )
    assert content_container(tree, "") is None


def test_short_lines_are_not_used_to_locate_the_container() -> None:
    tree = lxml_html.document_fromstring(PAGE)
    assert content_container(tree, "Capacity: 1.7 l\n\nPower: 2200 W") is None
