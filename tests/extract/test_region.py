"""The main region's visible text: boilerplate and hidden parts skipped, links kept."""

from __future__ import annotations

import pytest
from lxml import html as lxml_html

from spyglass.extract.features import described_page
from spyglass.extract.region import (
    element_and_part_markdown,
    element_markdown,
    main_region,
    region_markdown,
)

PAGE = """<html><body>
<header><a href="/">Shop</a></header>
<nav><a href="/a">A</a><a href="/b">B</a></nav>
<main>
  <h1>Kettles</h1>
  <ul class="products">
    <li><a href="/p/1">Steel kettle</a> 39 EUR</li>
    <li><a href="/p/2">Glass kettle</a> 45 EUR</li>
  </ul>
  <div class="cookie-banner">We use cookies</div>
  <div hidden>secret draft</div>
  <div style="display: none">invisible</div>
  <form><input value="search"><button>Go</button></form>
  <script>tracking()</script>
</main>
<footer>Imprint</footer>
</body></html>"""


def test_the_main_element_is_read_without_boilerplate_or_hidden_parts() -> None:
    text = markdown(PAGE, "https://shop.example/list")
    assert "# Kettles" in text
    assert "- [Steel kettle](https://shop.example/p/1) 39 EUR" in text
    assert "Glass kettle" in text
    for absent in ("Shop", "Imprint", "cookies", "secret draft", "invisible", "tracking", "Go"):
        assert absent not in text, absent


def test_the_tree_is_not_changed() -> None:
    tree = lxml_html.document_fromstring(PAGE)
    before = lxml_html.tostring(tree)
    region_markdown(tree, "https://shop.example/")
    assert lxml_html.tostring(tree) == before


def test_any_element_can_be_read_with_the_same_rules() -> None:
    tree = lxml_html.document_fromstring(PAGE)
    products = tree.xpath("//ul[@class='products']")[0]
    text = element_markdown(products, "https://shop.example/list")
    assert text == (
        "- [Steel kettle](https://shop.example/p/1) 39 EUR\n\n"
        "- [Glass kettle](https://shop.example/p/2) 45 EUR"
    )


PARTS = """<html><body>
<div class="promo">Outside the main region entirely.</div>
<main>
  <h1>Kettles</h1>
  <h2><span id="inside-heading">A part inside a <a href="/h">heading</a></span></h2>
  <section id="specs"><p>Steel, 1.7 litres.</p><pre>boil(water)</pre>
    <table><tr><th>Size</th><th>Price</th></tr><tr><td>1.7 l</td><td>39</td></tr></table>
  </section> and a tail after it.
  <div class="sidebar-widget" id="chrome"><p>Named as page chrome.</p></div>
  <div hidden id="draft"><p>Never shown.</p></div>
</main>
</body></html>"""


@pytest.mark.parametrize(
    "part",
    [
        "//section[@id='specs']",
        "//span[@id='inside-heading']",
        "//main",
        "//div[@class='promo']",
        "//div[@id='chrome']",
        "//div[@id='draft']",
        "//body",
        "//td",
    ],
)
def test_a_part_read_with_its_region_reads_as_it_does_alone(part: str) -> None:
    tree = lxml_html.document_fromstring(PARTS)
    main = tree.xpath("//main")[0]
    element = tree.xpath(part)[0]
    region, read = element_and_part_markdown(main, "https://shop.example/", element)
    assert region == element_markdown(main, "https://shop.example/")
    assert read == element_markdown(element, "https://shop.example/")
    assert read


def test_a_region_read_without_a_part_reads_the_part_as_empty() -> None:
    tree = lxml_html.document_fromstring(PARTS)
    main = tree.xpath("//main")[0]
    region, read = element_and_part_markdown(main, "https://shop.example/", None)
    assert (region, read) == (element_markdown(main, "https://shop.example/"), "")


def markdown(page: str, url: str = "https://x.example/") -> str:
    """The region's Markdown of ``page`` as served from ``url``."""
    return region_markdown(lxml_html.document_fromstring(page), url)


@pytest.mark.parametrize(
    ("page", "url", "expected"),
    [
        pytest.param(
            "<html><body><nav>Menu</nav><div><p>Only paragraph.</p></div></body></html>",
            "https://x.example/",
            "Only paragraph.",
            id="without a main element the body is read",
        ),
        pytest.param(
            "<html><body><main><p>Define it:</p>"
            '<pre><code class="language-python">def double(x):\n    return 2 * x\n\n'
            "print(double(4))</code></pre><p>Then run it.</p></main></body></html>",
            "https://docs.example/",
            "Define it:\n\n"
            "```python\ndef double(x):\n    return 2 * x\n\nprint(double(4))\n```\n\n"
            "Then run it.",
            id="preformatted code becomes a fenced block with its line breaks and language",
        ),
        pytest.param(
            "<html><body><main><table><tr><th>Name</th><th>Size</th></tr>"
            '<tr><td><a href="/k">Kettle</a></td><td>1 | 2 litres</td></tr>'
            "<tr><td>Pot</td></tr></table></main></body></html>",
            "https://shop.example/",
            "| Name | Size |\n|---|---|\n"
            "| [Kettle](https://shop.example/k) | 1 \\| 2 litres |\n| Pot |  |",
            id="a table of plain cells becomes a markdown table with links kept",
        ),
        pytest.param(
            '<html><body><main><a href="/c/1"><div>Course</div><h3>Cloud basics</h3>'
            "<p>Six weeks.</p></a> then more</main></body></html>",
            "https://learn.example/",
            "[Course](https://learn.example/c/1)\n\n### Cloud basics\n\nSix weeks.\n\nthen more",
            id="a link around blocks links its first line and leaves no bracket on a line alone",
        ),
        pytest.param(
            '<html><body><main><a href="/p/2"><div><h2>Glass kettle</h2></div>'
            "<span>45 EUR</span></a></main></body></html>",
            "https://shop.example/",
            "## [Glass kettle](https://shop.example/p/2)\n\n45 EUR",
            id="a heading that opens a linked card keeps its marker outside the link",
        ),
        pytest.param(
            "<html><body><main><h3><button aria-expanded='false'>Description</button></h3>"
            "<p>A kettle.</p><h2><span>Price</span><div>and delivery</div></h2></main>"
            "</body></html>",
            "https://shop.example/",
            "### Description\n\nA kettle.\n\n## Price and delivery",
            id="a heading holding blocks is one line, never a marker alone",
        ),
        pytest.param(
            "<html><body><main><ul><li><div>30-day returns</div><div>Free.</div></li>"
            "<li><h4>Warranty</h4>Two years</li><li><p></p>Same day</li></ul></main>"
            "</body></html>",
            "https://shop.example/",
            "- 30-day returns\n\nFree.\n\n#### Warranty\n\nTwo years\n\n- Same day",
            id="a list item holding blocks has its marker on its first line of words",
        ),
    ],
)
def test_a_region_reads_as_this_markdown(page: str, url: str, expected: str) -> None:
    assert markdown(page, url) == expected


def test_a_header_holding_paragraphs_of_prose_is_read_and_a_masthead_is_not() -> None:
    story = " ".join(["The council voted to rebuild the old bridge by spring."] * 12)
    page = (
        "<html><body><header class='site'><nav><p>"
        + " ".join(["Menu"] * 120)
        + "</p></nav><p>Daily news</p></header><main><h1>Bridge</h1>"
        f"<header class='rich-text'><p>{story}</p></header></main></body></html>"
    )
    text = markdown(page)
    assert "# Bridge" in text
    assert story in text
    assert "Menu" not in text
    assert "Daily news" not in text


def test_a_layout_table_is_read_as_text_not_as_one_table() -> None:
    page = (
        "<html><body><table><tr><td><div><p>Left column story.</p></div></td>"
        "<td><p>Right column story.</p></td></tr><tr><td>a</td><td>b</td></tr></table>"
        "</body></html>"
    )
    text = markdown(page)
    assert "|" not in text
    assert "Left column story." in text
    assert "Right column story." in text


# What only looks like chrome (issue 12's error analysis of the readings, bench/reading_errors.py).


def test_aria_hidden_text_is_read_since_it_is_on_screen() -> None:
    page = (
        "<html><body><main><h1>Returns</h1>"
        '<div class="accordion-body" aria-hidden="true"><p>Send it back within 30 days.</p></div>'
        '<span aria-hidden="true" class="icon"></span><p>Questions? Write to us.</p>'
        "</main></body></html>"
    )
    assert markdown(page) == "# Returns\n\nSend it back within 30 days.\n\nQuestions? Write to us."


def test_a_form_that_wraps_the_content_is_read_and_a_small_form_is_not() -> None:
    items = "".join(
        f'<li><a href="/p/{n}">Walnut desk number {n}</a> with drawers, solid wood, '
        "delivered assembled</li>"
        for n in range(12)
    )
    page = (
        "<html><body><main>"
        '<form class="search"><label>Search our catalogue of desks</label>'
        '<input name="q"><button>Go</button></form>'
        f'<form class="filters"><select><option>Oak</option></select><ul>{items}</ul></form>'
        "</main></body></html>"
    )
    text = markdown(page, "https://shop.example/desks")
    assert "- [Walnut desk number 0](https://shop.example/p/0) with drawers" in text
    assert "Walnut desk number 11" in text
    for absent in ("Search our catalogue", "Go", "Oak"):
        assert absent not in text, absent


def test_a_form_read_as_the_content_block_is_not_left_out() -> None:
    words = " ".join(["Welcome to the parish council's pages about the village hall."] * 12)
    tree = lxml_html.document_fromstring(
        f'<html><body><form id="aspnetForm"><h1>Village hall</h1><p>{words}</p></form>'
        "</body></html>"
    )
    form = tree.xpath("//form")[0]
    assert element_markdown(form, "https://parish.example/").startswith(
        "# Village hall\n\nWelcome to the parish council's pages"
    )


def test_a_button_that_opens_an_answer_is_read_and_other_buttons_are_not() -> None:
    page = (
        "<html><body><main>"
        '<button aria-expanded="false" aria-controls="a1">Do you deliver abroad?</button>'
        '<div id="a1"><p>Yes, to all of Europe.</p></div>'
        "<button>Add to basket</button></main></body></html>"
    )
    assert markdown(page) == "Do you deliver abroad?\n\nYes, to all of Europe."


def test_a_hidden_tab_panel_or_answer_is_read_and_other_hidden_boxes_are_not() -> None:
    page = (
        "<html><body><main><h1>Kettle</h1>"
        '<div role="tabpanel" hidden><p>Made of brushed steel.</p></div>'
        '<div class="faq__answer" style="display:none"><p>It boils in two minutes.</p></div>'
        "<div hidden><p>Draft price list.</p></div>"
        '<div class="popover" style="display: none">Signed in as admin</div>'
        '<div class="collapse navbar-collapse" style="display:none">Home Shop</div>'
        "</main></body></html>"
    )
    text = markdown(page)
    assert text == "# Kettle\n\nMade of brushed steel.\n\nIt boils in two minutes."


def test_parts_a_script_streams_in_hidden_and_tab_panels_named_either_way_are_read() -> None:
    page = (
        "<html><body><main><h1>Kettle</h1>"
        '<div hidden id="S:2e"><p>Ships within two days.</p></div>'
        '<div class="product-tab__content" style="display:none"><p>1.7 litres.</p></div>'
        '<div class="tab_content" hidden><p>Two years of warranty.</p></div>'
        '<div hidden id="S:2g"><p>Not a streamed part.</p></div>'
        "</main></body></html>"
    )
    assert markdown(page) == (
        "# Kettle\n\nShips within two days.\n\n1.7 litres.\n\nTwo years of warranty."
    )


@pytest.mark.parametrize(
    ("page", "expected"),
    [
        pytest.param(
            '<div class="o-layout has-sidebar"><p>Our plumbers come within the hour.</p></div>',
            "Our plumbers come within the hour.",
            id="a class naming a layout, not the box",
        ),
        pytest.param(
            '<table class="wikitable sticky-header"><tr><th>City</th><th>People</th></tr>'
            "<tr><td>Lyon</td><td>522,000</td></tr></table>",
            "| City | People |\n|---|---|\n| Lyon | 522,000 |",
            id="a table is data whatever its class",
        ),
        pytest.param(
            '<h2 class="section-header">Opening hours</h2><p>Daily 9 to 5.</p>',
            "## Opening hours\n\nDaily 9 to 5.",
            id="a heading is a heading whatever its class",
        ),
        pytest.param(
            '<div class="category-header"><h1>Bike helmets</h1><p>Helmets for every ride.</p>'
            '</div><div class="site-header"><a href="/">Home</a></div>',
            "# Bike helmets\n\nHelmets for every ride.",
            id="a box named as a header holding the page's title is the content's header",
        ),
        pytest.param(
            '<div class="hero-banner"><p>Spring sale on all tents.</p></div>'
            '<div role="banner"><a href="/">Camping shop</a></div>',
            "Spring sale on all tents.",
            id="a banner is chrome by its landmark role, not by a class",
        ),
    ],
)
def test_what_only_looks_like_chrome_is_read(page: str, expected: str) -> None:
    assert markdown(f"<html><body><main>{page}</main></body></html>") == expected


def test_a_main_element_with_almost_no_text_gives_way_to_the_body() -> None:
    prose = " ".join(["Use this calculator to plan how much to save each month."] * 6)
    page = (
        "<html><body><main><h1>Retirement calculator</h1></main>"
        f"<section class='content'><p>{prose}</p></section><footer>Imprint</footer>"
        "</body></html>"
    )
    text = markdown(page)
    assert "# Retirement calculator" in text
    assert prose in text
    assert "Imprint" not in text


def test_words_only_a_script_or_noscript_holds_do_not_make_a_main_element_the_region() -> None:
    copy = " ".join(["The thread's posts as crawlers see them."] * 20)
    page = (
        f"<html><body><div role='main'><noscript><p>{copy}</p></noscript>"
        f"<script>var posts = '{copy}';</script></div>"
        "<div class='topic'><p>First post of the thread.</p></div></body></html>"
    )
    assert markdown(page) == "First post of the thread."


def test_a_main_element_that_holds_the_content_keeps_what_lies_beside_it_out() -> None:
    prose = " ".join(["Each card lists a kettle with its price and size."] * 6)
    page = (
        f"<html><body><main><h1>Kettles</h1><p>{prose}</p></main>"
        "<div class='promo'><p>Spring sale on everything.</p></div></body></html>"
    )
    text = markdown(page)
    assert prose in text
    assert "Spring sale" not in text


WORDS = " ".join(["word"] * 60)


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (f"<main id='m'>{WORDS}</main>", "m"),
        (f"<div id='r' role='main'>{WORDS}</div>", "r"),
        (f"<main id='m' role='main'>{WORDS}</main>", "m"),
        (f"<div id='r' role='main'><main id='m'>{WORDS}</main></div>", "r"),
        (f"<main id='m'>{WORDS}</main><div id='r' role='main'>{WORDS}</div>", "m"),
        (f"<div id='r' role='main'>{WORDS}</div><main id='m'>{WORDS}</main>", "r"),
        (f"<main id='m'>{WORDS}</main><main id='n'>{WORDS}</main>", "m"),
        (f"<div id='x' role='navigation'>{WORDS}</div>", "body"),
    ],
    ids=[
        "a main element",
        "a main landmark",
        "both on one element",
        "a landmark around a main element",
        "a main element before a landmark",
        "a landmark before a main element",
        "two main elements",
        "neither",
    ],
)
def test_the_main_region_is_the_first_main_element_or_landmark_in_the_page(
    body: str, expected: str
) -> None:
    tree = lxml_html.document_fromstring(f"<html><body id='body'>{body}</body></html>")
    assert main_region(tree).get("id") == expected
    # The same when a walk over the page has counted its <main> and role="main" elements
    # (and so what to search it for).
    _, shape = described_page(tree, "https://site.example/")
    assert main_region(tree, shape).get("id") == expected
