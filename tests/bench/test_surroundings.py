"""What blocks ask of the elements around them, answered once per element."""

from __future__ import annotations

import math

import pytest
from bench.surroundings import Surroundings
from lxml import html as lxml_html

PAGE = """<html><body><header><nav><ul><li><a href="/">Home</a></li></ul></nav></header>
<div class="grid"><div class="card"><h3><a href="/1">One</a></h3><p>First card text.</p></div>
<div class="card"><h3><a href="/2">Two <a href="/2b">nested</a></a></h3><p>Second.</p></div>
<div class="card  wide"><p>Third card, not linked at all.</p></div></div></body></html>"""


def _find(tree: lxml_html.HtmlElement, xpath: str) -> lxml_html.HtmlElement:
    found = tree.xpath(xpath)
    assert found, xpath
    element: lxml_html.HtmlElement = found[0]
    return element


def test_link_density_is_the_share_of_the_element_s_text_in_its_links() -> None:
    tree = lxml_html.document_fromstring(PAGE)
    around = Surroundings()
    card = _find(tree, "//div[@class='card'][1]")
    text = len(card.text_content().strip())
    assert around.density(card) == pytest.approx(len("One") / text)
    assert around.density(_find(tree, "//div[@class='card  wide']")) == 0.0
    assert around.density(None) == -1.0
    # Asked twice, the same answer (from the memo).
    assert around.density(card) == around.density(card)


def test_cards_of_one_class_count_as_alike_siblings_whatever_the_spacing_of_the_class() -> None:
    tree = lxml_html.document_fromstring(PAGE)
    around = Surroundings()
    title = _find(tree, "//div[@class='card'][1]/h3")
    own, parent, grandparent = around.alike(title)
    assert own == 0.0  # the only <h3> in its card
    assert parent == pytest.approx(math.log1p(1))  # two cards share "div card"
    assert grandparent == 0.0  # the grid is alone in the body
    assert around.signature(_find(tree, "//div[@class='card  wide']")) == ("div", "card wide")


def test_the_chrome_above_an_element_is_named_with_how_far_up_it_is() -> None:
    tree = lxml_html.document_fromstring(PAGE)
    around = Surroundings()
    assert around.chrome(_find(tree, "//nav//a")) == (3.0, 1.0)  # a -> li -> ul -> nav
    assert around.chrome(_find(tree, "//header")) == (0.0, 2.0)
    assert around.chrome(_find(tree, "//p")) == (-1.0, 0.0)
