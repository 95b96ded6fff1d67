"""What a reader of the page sees, and which boxes are the page's chrome."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from lxml import html as lxml_html

from spyglass.extract.visibility import hidden, many_words, shown_text, skipped

PROSE = " ".join(["word"] * 120)


def element(markup: str) -> tuple[lxml_html.HtmlElement, lxml_html.HtmlElement]:
    """The first element of ``markup`` inside a ``<main>``, and that ``<main>``."""
    tree = lxml_html.document_fromstring(f"<html><body><main>{markup}</main></body></html>")
    root = tree.find(".//main")
    assert root is not None
    return root[0], root


@pytest.mark.parametrize(
    "markup",
    [
        "<nav><a href='/a'>A</a></nav>",
        "<footer>Imprint</footer>",
        "<aside>More</aside>",
        "<script>tracking()</script>",
        "<div hidden>draft</div>",
        "<div style='display: none'>invisible</div>",
        "<div style='visibility:hidden'>invisible</div>",
        "<div class='cookie-banner'>We use cookies</div>",
        "<div id='site-footer'>Imprint</div>",
        "<div role='navigation'>Menu</div>",
        "<form><input value='search'><button>Go</button></form>",
        f"<form><label>{PROSE}</label><select><option>{PROSE}</option></select></form>",
        "<header><a href='/'>Shop</a></header>",
        f"<header><nav><p>{PROSE}</p></nav></header>",
        "<button>Add to basket</button>",
    ],
)
def test_what_is_unseen_or_named_as_chrome_is_left_out(markup: str) -> None:
    assert skipped(*element(markup))


@pytest.mark.parametrize(
    "markup",
    [
        "<div aria-hidden='true'>On screen</div>",
        "<div class='tab-pane' hidden>Specifications</div>",
        "<div role='tabpanel' style='display:none'>Reviews</div>",
        "<div class='faq-answer' hidden>Yes, it does.</div>",
        "<div class='has-sidebar'>Content</div>",
        "<table class='sticky-header'><tr><td>1</td></tr></table>",
        "<h2 class='section-header'>Details</h2>",
        "<div class='category-header'><h1>Kettles</h1></div>",
        f"<form><p>{PROSE}</p></form>",
        f"<header><p>{PROSE}</p></header>",
        "<button aria-expanded='false'>Does it boil?</button>",
        "<p>Plain text</p>",
    ],
)
def test_what_only_looks_like_chrome_is_read(markup: str) -> None:
    assert not skipped(*element(markup))


def test_the_element_read_is_left_out_only_for_its_tag() -> None:
    box, _ = element("<div class='sidebar'><p>Inside</p></div>")
    assert not skipped(box, box)
    nav, _ = element("<nav><p>Inside</p></nav>")
    assert skipped(nav, nav)


@pytest.mark.parametrize(
    ("markup", "expected"),
    [
        ("<script>x()</script>", True),
        ("<div hidden>draft</div>", True),
        ("<div style='display: none'>x</div>", True),
        ("<div class='tab-pane' hidden>Specifications</div>", False),
        ("<button aria-controls='answer-1'>Question</button>", False),
        ("<button>Buy</button>", True),
        ("<nav>Menu</nav>", False),
        ("<div class='cookie-banner'>cookies</div>", False),
        ("<div aria-hidden='true'>On screen</div>", False),
    ],
)
def test_hidden_is_never_shown_whatever_the_element_is_named(markup: str, expected: bool) -> None:
    assert hidden(element(markup)[0]) is expected


def test_shown_text_leaves_out_scripts_styles_and_templates_but_keeps_tails() -> None:
    box, _ = element(
        "<div>one <script>no()</script>two <style>.x{}</style><template>t</template>"
        "<noscript>n</noscript><b>three</b> four</div>"
    )
    assert " ".join("".join(shown_text(box)).split()) == "one two three four"


def test_many_words_counts_across_texts_and_stops_at_enough() -> None:
    def texts() -> Iterator[str]:
        yield "one two"
        yield "three"
        raise AssertionError("read past enough words")

    assert many_words(texts(), 3)
    assert not many_words(["one two", "three"], 4)
