"""The main region's visible text: boilerplate and hidden parts skipped, links kept."""

from __future__ import annotations

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
    text = region_markdown(lxml_html.document_fromstring(PAGE), "https://shop.example/list")
    assert "# Kettles" in text
    assert "- [Steel kettle](https://shop.example/p/1) 39 EUR" in text
    assert "Glass kettle" in text
    for absent in ("Shop", "Imprint", "cookies", "secret draft", "invisible", "tracking", "Go"):
        assert absent not in text, absent


def test_without_a_main_element_the_body_is_read() -> None:
    page = "<html><body><nav>Menu</nav><div><p>Only paragraph.</p></div></body></html>"
    text = region_markdown(lxml_html.document_fromstring(page), "https://x.example/")
    assert text == "Only paragraph."


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


def test_preformatted_code_becomes_a_fenced_block_with_its_line_breaks_and_language() -> None:
    page = (
        "<html><body><main><p>Define it:</p>"
        '<pre><code class="language-python">def double(x):\n    return 2 * x\n\n'
        "print(double(4))</code></pre><p>Then run it.</p></main></body></html>"
    )
    text = region_markdown(lxml_html.document_fromstring(page), "https://docs.example/")
    assert text == (
        "Define it:\n\n"
        "```python\ndef double(x):\n    return 2 * x\n\nprint(double(4))\n```\n\n"
        "Then run it."
    )


def test_a_table_of_plain_cells_becomes_a_markdown_table_with_links_kept() -> None:
    page = (
        "<html><body><main><table><tr><th>Name</th><th>Size</th></tr>"
        '<tr><td><a href="/k">Kettle</a></td><td>1 | 2 litres</td></tr>'
        "<tr><td>Pot</td></tr></table></main></body></html>"
    )
    text = region_markdown(lxml_html.document_fromstring(page), "https://shop.example/")
    assert text == (
        "| Name | Size |\n|---|---|\n"
        "| [Kettle](https://shop.example/k) | 1 \\| 2 litres |\n| Pot |  |"
    )


def test_a_layout_table_is_read_as_text_not_as_one_table() -> None:
    page = (
        "<html><body><table><tr><td><div><p>Left column story.</p></div></td>"
        "<td><p>Right column story.</p></td></tr><tr><td>a</td><td>b</td></tr></table>"
        "</body></html>"
    )
    text = region_markdown(lxml_html.document_fromstring(page), "https://x.example/")
    assert "|" not in text
    assert "Left column story." in text
    assert "Right column story." in text
