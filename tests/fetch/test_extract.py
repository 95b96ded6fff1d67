"""HTML to Markdown: main content, absolute links, no scripts, visible-text fallback."""

from __future__ import annotations

from spyglass.fetch.extract import absolute_links, extract_html

ARTICLE = (
    """<html><head><title>T</title><base href="/docs/"><script>var secret=1;</script>
<style>.x{color:red}</style></head><body>
<nav><a href="/">Home</a> <a href="/about">About</a></nav>
<article><h1>Guide</h1><h2>Install</h2>
<p>Read <a href="setup.html">the setup page</a> and <a href="javascript:alert(1)">this</a>
before you begin with the installation of the tool on your machine today.</p>
<ul><li>first step of many</li><li>second step of many</li></ul>
<table><tr><th>Name</th><th>Value</th></tr><tr><td>alpha</td><td>1</td></tr></table>
"""
    + "<p>More explanatory text about the tool and how it is used in practice.</p>" * 8
    + """
</article><footer>Copyright footer text</footer></body></html>"""
)


def test_main_content_keeps_headings_lists_tables_and_absolute_links() -> None:
    extracted = extract_html(ARTICLE, "https://example.com/guide/index.html")
    text = extracted.markdown
    assert extracted.title == "T"
    assert "## Install" in text or "# Install" in text
    assert "- first step of many" in text
    assert "| alpha | 1 |" in text or "alpha" in text
    assert "[the setup page](https://example.com/docs/setup.html)" in text
    assert "javascript:" not in text
    assert "var secret" not in text
    assert "color:red" not in text


def test_a_page_without_an_article_still_yields_its_visible_text() -> None:
    html = "<html><body><div><span>Price: 12 EUR</span><button>Buy</button></div></body></html>"
    extracted = extract_html(html, "https://shop.example/item")
    assert "Price: 12 EUR" in extracted.markdown


def test_markup_that_cannot_be_parsed_gives_empty_text_not_an_error() -> None:
    assert extract_html("", "https://example.com/").markdown == ""


def test_relative_and_protocol_relative_targets_become_absolute() -> None:
    base = "https://example.com/a/b"
    assert absolute_links("[x](../c)", base) == "[x](https://example.com/c)"
    assert absolute_links("[x](//cdn.example.org/f)", base) == "[x](https://cdn.example.org/f)"
    assert absolute_links("![img](pic.png)", base) == "![img](https://example.com/a/pic.png)"
    assert absolute_links("[mail](mailto:a@b.c)", base) == "[mail]"


PRODUCT = (
    """<html><head><title>Kettle</title></head><body><nav><a href="/">Home</a></nav>
<div class="product"><h1>Steel kettle</h1><div class="description">"""
    + "".join(
        f"<p>The kettle model {i} boils a full litre of water in under three minutes "
        "and keeps it warm for an hour afterwards.</p>"
        for i in range(4)
    )
    + """</div><ul class="specs">
<li><a href="/c/1">Capacity</a>: 1.7 litres</li><li><a href="/c/2">Power</a>: 2200 watts</li>
<li><a href="/c/3">Weight</a>: 1.1 kilograms</li><li><a href="/c/4">Cord</a>: 75 centimetres</li>
<li><a href="/c/5">Colour</a>: brushed steel</li><li><a href="/c/6">Warranty</a>: two years</li>
</ul><div class="care"><p>Descale the kettle every month with a mild solution of citric
acid and plenty of water.</p></div></div><footer>Imprint and contact</footer></body></html>"""
)


def test_specifications_between_extracted_paragraphs_are_kept_without_page_chrome() -> None:
    text = extract_html(PRODUCT, "https://shop.example/kettle").markdown
    assert "The kettle model 0 boils" in text
    assert "Descale the kettle" in text
    assert "[Capacity](https://shop.example/c/1): 1.7 litres" in text
    assert "brushed steel" in text
    assert "Imprint" not in text
    assert "Home" not in text


def test_relative_links_resolve_against_the_page_not_the_site_root() -> None:
    html = (
        "<html><body><article>"
        + "<p>Some long explanatory paragraph about the next step of the guide.</p>" * 5
        + '<p>Continue with <a href="next.html">the next chapter</a> of this guide now.</p>'
        + "</article></body></html>"
    )
    text = extract_html(html, "https://example.com/docs/guide/index.html").markdown
    assert "[the next chapter](https://example.com/docs/guide/next.html)" in text


def test_a_block_repeated_on_the_page_appears_once() -> None:
    post = "<div class='post'><p>{}</p><p>Report this post to the moderators</p></div>"
    bodies = [
        "I replaced the fuse and the kettle now works again, thanks for the advice.",
        "Glad to hear it; the same fuse fails on many older models of that brand.",
        "Mine failed the same way last winter and a new fuse fixed it for good.",
    ]
    html = "<html><body><main>" + "".join(post.format(b) for b in bodies) + "</main></body></html>"
    text = extract_html(html, "https://forum.example/t/1").markdown
    for body in bodies:
        assert body in text
    assert text.count("Report this post to the moderators") == 1
