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
