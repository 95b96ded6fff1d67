"""The main region's visible text: boilerplate and hidden parts skipped, links kept."""

from __future__ import annotations

import pytest
from lxml import html as lxml_html

from spyglass.fetch.region import element_markdown, region_markdown

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
    ],
)
def test_a_region_reads_as_this_markdown(page: str, url: str, expected: str) -> None:
    assert markdown(page, url) == expected


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
