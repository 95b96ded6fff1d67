"""The visible text of a page's main region, for pages that are not articles.

Article extractors keep the densest run of prose and drop the rest, which is right for a
news story and wrong for a product grid, a forum thread or a service page, whose content is
many short blocks. This walks the ``<main>`` element (or ``role="main"``; the ``<body>``
when there is none or it holds almost no text) and keeps its visible text as light
Markdown, leaving out what :mod:`spyglass.extract.visibility` says a reader does not see or is
the page's chrome (navigation, headers, footers, asides, forms, hidden elements, blocks
named as boilerplate; kept when they only look like it: tab panels, FAQ answers, a header
holding the article).
Preformatted text becomes a fenced code block with its line breaks kept, and a table of
plain cells a Markdown table, so either survives whichever reading is chosen. A heading is
one line whatever blocks it holds, a list item's marker goes on its first line of words, and
a link around blocks (a card whose whole box is one ``<a>``) links its first line of words:
never a marker or a bracket on a line of its own. The tree is only read, never changed.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from urllib.parse import urljoin

from lxml import etree
from lxml import html as lxml_html

from spyglass.extract.tree import PageShape
from spyglass.extract.visibility import many_words, shown_text, skipped_tag
from spyglass.extract.words import one_spaced

_BLOCK_TAGS = frozenset(
    [
        "p",
        "div",
        "li",
        "ul",
        "ol",
        "dl",
        "dd",
        "dt",
        "section",
        "article",
        "main",
        "table",
        "tr",
        "blockquote",
        "pre",
        "figure",
        "figcaption",
        "address",
        "details",
        "summary",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "hr",
        "br",
        "button",
    ]
)
_HEADINGS = {f"h{n}": n for n in range(1, 7)}
#: A ``<main>`` with fewer shown words than this is not where the content is: a shell the
#: page's scripts fill in, or a theme's wrapper around a heading while the content sits
#: beside it (19 of WCXB dev's 1,497 pages, 3 of trafilatura-eval's 884; docs/benchmarks.md,
#: round fifteen).
_MAIN_WORDS = 50
_LANGUAGE = re.compile(r"(?:^|\s)(?:language|lang)-([\w+#-]+)")
#: Elements inside a cell that make a table a page layout rather than data.
_LAYOUT_IN_CELL = frozenset(["table", "div", "p", "ul", "ol", "dl", "pre", "blockquote", "section"])
_ROLE_MAIN = etree.XPath("//@role[.='main']/..")
_MAIN_OR_ROLE = etree.XPath("//main|//*[@role='main']")
#: A line that stands for a fenced block kept aside (code keeps its own line breaks).
_KEPT = "\ue000"


def main_region(
    tree: lxml_html.HtmlElement, shape: PageShape | None = None
) -> lxml_html.HtmlElement:
    """The page's ``<main>`` (or ``role="main"``) element, else its ``<body>``; the body too
    when the main element holds almost no text (see :data:`_MAIN_WORDS`). ``shape`` is what a
    walk over the page counted, when one has: the page is then searched only for what it
    holds."""
    element = _first_main(tree, shape)
    if element is not None and many_words(shown_text(element), _MAIN_WORDS):
        return element
    body = tree.find(".//body")
    return body if body is not None else tree


def _first_main(
    tree: lxml_html.HtmlElement, shape: PageShape | None
) -> lxml_html.HtmlElement | None:
    """The first ``<main>`` or ``role="main"`` element in the page's order, if any."""
    # libxml2 answers "//*[@role='main']" by building the node set of every element (about
    # 1 ms on a large page); the tag's own iterator and the path through the attributes
    # cost about half as much. Both are asked, since either may come first; without an
    # element but <main> saying role="main", the first <main> is the answer either way.
    tagged = None if shape is not None and not shape.mains else next(tree.iter("main"), None)
    if shape is not None and not shape.role_mains:
        return tagged
    found_roles = _ROLE_MAIN(tree)
    if not found_roles:
        return tagged
    if tagged is None or found_roles[0] is tagged:
        return found_roles[0]
    found = _MAIN_OR_ROLE(tree)  # both, in different places (rare): the page's order
    return found[0]


def region_markdown(tree: lxml_html.HtmlElement, base: str) -> str:
    """Visible text of the main region as Markdown (headings, list items, links)."""
    return element_markdown(main_region(tree), base)


def element_markdown(root: lxml_html.HtmlElement, base: str) -> str:
    """Visible text of ``root`` and its descendants as Markdown, boilerplate skipped."""
    out: list[str] = []
    kept: list[str] = []
    _walk(root, root, base, out, kept)
    return _joined(out, kept)


def element_and_part_markdown(
    root: lxml_html.HtmlElement, base: str, part: lxml_html.HtmlElement | None
) -> tuple[str, str]:
    """:func:`element_markdown` of ``root`` and of ``part`` (any element; None reads as
    ``""``), the part walked once when the walk of ``root`` reads it."""
    if part is None:
        return element_markdown(root, base), ""
    out: list[str] = []
    kept: list[str] = []
    capture = _Capture(part)
    _walk(root, root, base, out, kept, capture)
    if capture.out is None:
        # Outside the region, or left out of it (hidden, named as chrome): read on its own.
        return _joined(out, kept), element_markdown(part, base)
    # The part's pieces are what a walk from it writes: below it the root is never
    # consulted, and the part itself is read whole either way (it was not left out).
    spaced: dict[str, str] = {}
    return _joined(out, kept, spaced), _joined(capture.out, kept, spaced)


def run_markdown(
    root: lxml_html.HtmlElement,
    text: str | None,
    children: list[lxml_html.HtmlElement],
    base: str,
) -> str:
    """Markdown of a run of ``root``'s content: ``text``, then ``children`` (each with its
    tail), read as :func:`element_markdown` reads them."""
    out: list[str] = [text or ""]
    kept: list[str] = []
    for child in children:
        _walk(child, root, base, out, kept)
    return _joined(out, kept)


def _joined(out: list[str], kept: list[str], spaced: dict[str, str] | None = None) -> str:
    """The lines ``out`` writes, each one-spaced, blank ones left out, kept ones put back;
    ``spaced`` keeps long lines' spacing across calls (the region and the part in it share
    their lines)."""
    lines = []
    for raw in "".join(out).split("\n"):
        if spaced is None or len(raw) < 1000:
            line = one_spaced(raw)
        else:
            line = spaced.get(raw) or spaced.setdefault(raw, one_spaced(raw))
        if line.startswith(_KEPT) and line[1:].isdigit():
            line = kept[int(line[1:])]
        if line:
            lines.append(line)
    return "\n\n".join(lines)


class _Capture:
    """What a walk wrote for one element on the way (``out`` stays None when the walk
    left it out or never reached it)."""

    __slots__ = ("element", "out")

    def __init__(self, element: lxml_html.HtmlElement) -> None:
        self.element = element
        self.out: list[str] | None = None


def _walk(
    element: lxml_html.HtmlElement,
    root: lxml_html.HtmlElement,
    base: str,
    out: list[str],
    kept: list[str],
    capture: _Capture | None = None,
) -> None:
    tag = element.tag
    if not isinstance(tag, str) or skipped_tag(element, tag, root):
        if element.tail:
            out.append(element.tail)
        return
    if capture is not None:
        if element is capture.element:
            start = len(out)
            _walk(element, root, base, out, kept)
            capture.out = out[start:]
            return
        if capture.out is not None:
            # Found already: the rest of the walk need not look for it.
            capture = None
    fenced = (
        code_markdown(element)
        if tag == "pre"
        else _table(element, base)
        if tag == "table"
        else None
    )
    if fenced:
        # Kept aside: the line joining below would collapse the code's spacing.
        out.append(f"\n{_KEPT}{len(kept)}\n")
        kept.append(fenced)
        if element.tail:
            out.append(element.tail)
        return
    block = tag in _BLOCK_TAGS
    if block:
        out.append("\n")
    level = _HEADINGS.get(tag)
    link = _href(element, base) if tag == "a" else None
    if level or link or tag == "li":
        # Read apart, since Markdown wants a heading on one line, a list item's marker on
        # its first line and a link's text without paragraphs in it; pages put blocks in
        # all three (a button opening an accordion in an <h3>, a <div> in an <li>, a card
        # whose whole box is one <a>).
        inner: list[str] = [element.text or ""]
        for child in element:
            _walk(child, root, base, inner, kept, capture)
        text = "".join(inner)
        if level:
            out.append("#" * level + " " + _one_line(text))
        elif link:
            out.append(_linked(text, link))
        else:
            out.append(_first_line(text, _item))
    else:
        if element.text:
            out.append(element.text)
        for child in element:
            _walk(child, root, base, out, kept, capture)
    if block:
        out.append("\n")
    elif tag in ("td", "th"):
        out.append(" ")
    if element.tail:
        out.append(element.tail)


def _one_line(text: str) -> str:
    """``text`` on one line (a code block or table kept aside stays on its own)."""
    return text if _KEPT in text else text.replace("\n", " ")


#: A Markdown line's heading or list marker, and the rest of it.
_MARKER = re.compile(r"\s*(#{1,6} |- )?(.*)", re.DOTALL)


def _first_line(text: str, change: Callable[[str, str], str | None]) -> str:
    """``text`` with its first line of words (not a kept block) replaced by ``change(marker,
    words)`` of its heading or list marker ("" for none) and its words; ``None`` from
    ``change`` leaves it as it is."""
    lines = text.split("\n")
    for number, line in enumerate(lines):
        marker, words = _MARKER.fullmatch(line).groups()  # type: ignore[union-attr]
        words = words.strip()
        if words and not words.startswith(_KEPT):
            changed = change(marker or "", words)
            if changed is not None:
                lines[number] = changed
            break
    return "\n".join(lines)


def _item(marker: str, words: str) -> str | None:
    """A list item's first line of words with the item's marker (one that is a heading or an
    item of its own keeps its marker)."""
    return None if marker else f"- {words}"


def _linked(text: str, link: str) -> str:
    """``text`` as the text of a link to ``link``: all of it on one line, or when it holds
    blocks (a card whose whole box is one link), its first line's words linked and the
    other lines as they are, since a link's text cannot span paragraphs in Markdown."""
    if "\n" not in text:
        return f"[{text}]({link})"
    return _first_line(text, lambda marker, words: f"{marker}[{words}]({link})")


def _href(element: lxml_html.HtmlElement, base: str) -> str | None:
    href = (element.get("href") or "").strip()
    if not href or not element.text_content().strip():
        return None
    return web_url(base, href)


# A page links the same targets from many places (its menu, every card of a grid), and
# the readings resolve them again: urljoin is the costliest part of reading a link.
@functools.lru_cache(maxsize=8192)
def web_url(base: str, target: str) -> str | None:
    """``target`` resolved against ``base``, when that is an http(s) URL; None for another
    scheme (``javascript:``, ``data:``) or a malformed address (``http://[not-an-ip]/``)."""
    try:
        absolute = urljoin(base, target)
    except ValueError:
        return None
    return absolute if absolute.startswith(("http://", "https://")) else None


def code_markdown(element: lxml_html.HtmlElement) -> str | None:
    """A ``<pre>`` as a fenced code block, its language from a ``language-*`` class."""
    text = element.text_content().strip("\n")
    if not text.strip():
        return None
    names = " ".join(
        filter(None, [element.get("class"), *(c.get("class") for c in element.iter("code"))])
    )
    match = _LANGUAGE.search(names)
    language = match.group(1) if match else ""
    fence = "````" if "```" in text else "```"
    return f"{fence}{language}\n{text.rstrip()}\n{fence}"


def _table(element: lxml_html.HtmlElement, base: str) -> str | None:
    """A table of plain cells as a Markdown table; None for a layout table (cells holding
    blocks or other tables), which is read as text instead."""
    found = table_rows(element, base)
    if found is None:
        return None
    rows = [cells for _, cells in found]
    width = max(len(cells) for cells in rows)
    lines = ["| " + " | ".join(cells + [""] * (width - len(cells))) + " |" for cells in rows]
    lines.insert(1, "|" + "---|" * width)
    return "\n".join(lines)


def table_rows(
    element: lxml_html.HtmlElement, base: str
) -> list[tuple[lxml_html.HtmlElement, list[str]]] | None:
    """The rows of a table of plain cells (each ``<tr>`` with its cells' Markdown), or None
    for a layout table (cells holding blocks or other tables) or one too small to be data
    (fewer than two rows or columns)."""
    rows: list[tuple[lxml_html.HtmlElement, list[str]]] = []
    for row in element.iter("tr"):
        cells = []
        for cell in row:
            if cell.tag not in ("td", "th"):
                continue
            if any(inner.tag in _LAYOUT_IN_CELL for inner in cell.iterdescendants()):
                return None
            cells.append(_cell_text(cell, base))
        if any(cells):
            rows.append((row, cells))
    if len(rows) < 2 or max(len(cells) for _, cells in rows) < 2:
        return None
    return rows


def _cell_text(cell: lxml_html.HtmlElement, base: str) -> str:
    out: list[str] = []
    for child in cell:
        _walk(child, cell, base, out, [])
    text = (cell.text or "") + "".join(out)
    return " ".join(text.split()).replace("|", "\\|")
