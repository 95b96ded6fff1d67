"""Blocks segmented from the page's markup, described for the DOM-block model, and the
reading assembled from the ones it keeps.

The three readings of :mod:`spyglass.extract.readings` each hold a region of the page
whole or not at all; on a product, a collection or a listing the content is often spread
over several regions (a description, a specification table, a grid of cards) next to the
page's chrome. Here the page's body is cut into its lowest blocks that hold text — a
paragraph, a heading, a list item, a table row, a ``<pre>``, a quotation, a ``<div>`` with
text of its own — skipping what no reader shows (scripts, hidden elements, navigation,
headers, footers and boxes named as chrome, as the region reader does). Each block is
described in one pass by its element (tag, depth, the kinds of box its ancestors are named
as, :mod:`spyglass.extract.block_markup`), its text (words, links, punctuation), the link density
of the elements around it, how many siblings share its tag and class (the cards of a grid,
the rows of a listing), where it comes in the page, whether the other readings contain its
text, and what kind of page it is on, so the same list of links can be chrome under an
article and the content of a listing. Whatever the blocks ask of an element (its signature,
its alike siblings, the link density of its text, the chrome above it) is computed once per
element and page, and the rows come back as one matrix. The blocks a model keeps are put
back together in document order as Markdown (headings, list items, tables, code fences,
absolute links), finished as the other readings are (:func:`dom_candidate`).

This reading is not on ``web.fetch``'s path, so it lives with the benchmarks rather than
in the package: ``bench/dom_reading.py`` trains the model, measures the reading held out
as a fourth candidate of the chooser and times it (better on both corpora, and precise
enough at a threshold of 0.7, but still about a third of trafilatura's time on top of
the shipped path, past the time target; docs/benchmarks.md).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy
from lxml import html as lxml_html

from bench.surroundings import SIBLING_LEVELS, Surroundings
from spyglass.extract.block_markup import CHAIN_FEATURES, Places, owner_tag
from spyglass.extract.blocks import LONG_WORDS, SHORT_WORDS, names_a_box
from spyglass.extract.links import link_text
from spyglass.extract.readings import finish
from spyglass.extract.region import code_markdown, run_markdown, table_rows
from spyglass.extract.visibility import hidden, skipped

#: Elements that end a run of text: a block of their own, or a container of blocks.
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
        "tbody",
        "thead",
        "tfoot",
        "tr",
        "td",
        "th",
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
        "body",
        "nav",
        "header",
        "footer",
        "aside",
        "form",
        "center",
        "fieldset",
        "caption",
    ]
)
_HEADINGS = {f"h{n}": n for n in range(1, 7)}
_KIND_CODES = {"text": 0.0, "heading": 1.0, "item": 2.0, "row": 3.0, "code": 4.0, "quote": 5.0}
_WORD = re.compile(r"\w+")
_DIGIT = re.compile(r"\d")
_LINK_LABEL = re.compile(r"!?\[([^\]\n]*)\]\([^)\n]*\)")
_BLANK_RUNS = re.compile(r"\n{3,}")
_MARKER = re.compile(r"^(?:#{1,6} |- )")

#: What each block is described by, before the page's context row.
SEGMENT_FEATURES = [
    "segment_kind",
    "owner_tag",
    "heading_level",
    "loose_text",
    *CHAIN_FEATURES,
    "words",
    "chars",
    "link_density",
    "parent_link_density",
    "grandparent_link_density",
    "position",
    "words_before_share",
    "sentence_end",
    "digit_share",
    "boilerplate_words",
    "boilerplate_heading",
    *(f"alike_siblings_{level}" for level in range(SIBLING_LEVELS)),
    "alike_in_page",
    "in_article",
    "in_region",
    "in_block",
    "before_first_long",
    "after_last_long",
    "up_to_chrome_tag",
    "chrome_tag",
    "segments",
    "page_words",
]
#: The readings whose text a block is looked up in, in the order of its features.
LOOKED_UP = ("article", "region", "block")


@dataclass(frozen=True, eq=False)
class Segment:
    """One block of the page: its element, its kind and its Markdown."""

    #: The element holding the block (for loose text, the element whose own text it is).
    element: lxml_html.HtmlElement
    #: "text", "heading", "item", "row" (of a data table), "code" or "quote".
    kind: str
    markdown: str
    #: A table row's cells (Markdown), to put kept rows back together as a table.
    cells: tuple[str, ...] = ()
    #: Text of an element that also holds blocks (between or around them).
    loose: bool = False
    #: For a table row, which of the page's data tables it belongs to (from 0).
    table: int = -1

    @property
    def text(self) -> str:
        """What a reader sees of the block: link and image labels without their targets."""
        return link_text(self.markdown)


def segments(root: lxml_html.HtmlElement, base: str, chrome: bool = True) -> list[Segment]:
    """The blocks of ``root`` (the page's body) in document order, links absolute against
    ``base``; with ``chrome``, also those of navigation, headers, footers, asides, forms and
    boxes named as chrome (the model decides), else those are skipped as the region reader
    skips them."""
    found: list[Segment] = []
    _Segmenter(root, base, found, chrome).collect(root)
    return found


class _Segmenter:
    def __init__(
        self, root: lxml_html.HtmlElement, base: str, found: list[Segment], chrome: bool
    ) -> None:
        self.root = root
        self.chrome = chrome
        self.base = base
        self.found = found
        self.tables = 0

    def collect(self, element: lxml_html.HtmlElement) -> bool:
        """Append the blocks of ``element``; False when it holds no block (it is then
        part of its parent's text, and nothing was appended)."""
        tag = element.tag
        if hidden(element) if self.chrome else skipped(element, self.root):
            # The readers leave it out; its tail is text of the parent.
            return False
        if tag == "pre":
            self._add(element, "code", code_markdown(element) or "")
            return True
        if tag == "table":
            rows = table_rows(element, self.base)
            if rows is not None:
                for row, cells in rows:
                    markdown = "| " + " | ".join(cells) + " |"
                    self.found.append(
                        Segment(row, "row", markdown, tuple(cells), table=self.tables)
                    )
                self.tables += 1
                return True
        if not len(element):
            # A leaf (most elements): a block when its tag is one, else its parent's text.
            if tag in _BLOCK_TAGS or element is self.root:
                if element.text:
                    markdown = run_markdown(element, element.text, [], self.base)
                    if markdown:
                        self.found.append(_marked(element, tag, markdown, loose=False))
                return True
            return False
        # Runs of text between block children are blocks of their own once one child is a
        # block; before that they are pending, inserted where they began.
        runs: list[tuple[int, str | None, list[lxml_html.HtmlElement]]] = []
        text: str | None = element.text
        inline: list[lxml_html.HtmlElement] = []
        start = len(self.found)
        holds_blocks = False
        for child in element:
            before = len(self.found)
            if self.collect(child):
                holds_blocks = True
                runs.append((before, text, inline))
                text, inline = child.tail, []
            else:
                inline.append(child)
        if not holds_blocks:
            if tag in _BLOCK_TAGS or element is self.root:
                markdown = run_markdown(element, element.text, list(element), self.base)
                if markdown:
                    self.found.append(_marked(element, tag, markdown, loose=False))
                return True
            return False
        runs.append((len(self.found), text, inline))
        # Inserted from the last so that earlier positions stay valid.
        for position, run_text, children in reversed(runs):
            if not children and not (run_text and run_text.strip()):
                continue
            markdown = run_markdown(element, run_text, children, self.base)
            if markdown:
                leading = position == start
                self.found.insert(position, _marked(element, tag, markdown, True, leading))
        return True

    def _add(self, element: lxml_html.HtmlElement, kind: str, markdown: str) -> None:
        if markdown:
            self.found.append(Segment(element, kind, markdown))


def _kind(tag: str) -> str:
    if tag in _HEADINGS:
        return "heading"
    if tag in ("li", "dd", "dt"):
        return "item"
    if tag == "pre":
        return "code"
    if tag == "blockquote":
        return "quote"
    return "text"


def _marked(
    element: lxml_html.HtmlElement, tag: str, markdown: str, loose: bool, leading: bool = True
) -> Segment:
    """A block of ``element``'s text with its Markdown marker: a heading's ``#``s, a list
    item's dash (for loose text, only on the run that starts the element)."""
    kind = _kind(tag) if leading else "text"
    if kind == "heading":
        markdown = f"{'#' * _HEADINGS[tag]} {markdown}"
    elif kind == "item" and tag == "li":
        markdown = f"- {markdown}"
    elif loose and kind in ("code", "quote"):
        kind = "text"
    return Segment(element, kind, markdown, loose=loose)


# -- features ----------------------------------------------------------------------------


def _tokens(text: str) -> list[str]:
    return _WORD.findall(text.lower().replace("_", " "))


class _Lookup:
    """A reading's words, to ask how much of a block it contains."""

    def __init__(self, markdown: str) -> None:
        self.words = _tokens(link_text(markdown))
        words = self.words
        # The bound method is what the share of every block calls, in C through map().
        self.has = set(zip(words, words[1:], words[2:], strict=False)).__contains__
        self._joined = ""

    def share(self, words: list[str], phrase: str, grams: list[tuple[str, str, str]]) -> float:
        """How much of a block (its ``words``, their ``phrase``, their word ``grams``,
        built once for every reading) this reading holds."""
        if not grams:
            if not words:
                return 0.0
            if not self._joined:
                # Only blocks of one or two words look for their phrase.
                self._joined = " " + " ".join(self.words) + " "
            return float(phrase in self._joined)
        return sum(map(self.has, grams)) / len(grams)


def segment_rows(
    found: Sequence[Segment],
    readings: Mapping[str, str],
    places: Places,
    context: Sequence[float] = (),
) -> numpy.ndarray:
    """One feature row (:data:`SEGMENT_FEATURES`, then ``context``) per block of ``found``,
    as a matrix of float64: ``readings`` are the candidate readings by kind
    (:data:`LOOKED_UP`), ``places`` the page's :class:`~spyglass.extract.block_markup.Places`,
    ``context`` the page's row of page and candidate features (the same for every block)."""
    if not found:
        return numpy.empty((0, len(SEGMENT_FEATURES) + len(context)))
    lookups = [_Lookup(readings.get(kind, "")) for kind in LOOKED_UP]
    texts = [s.text for s in found]
    words = [_tokens(t) for t in texts]
    counts = [len(w) for w in words]
    total = sum(counts) or 1
    long_ones = [i for i, s in enumerate(found) if counts[i] >= LONG_WORDS and s.kind == "text"]
    first_long = long_ones[0] if long_ones else -1
    last_long = long_ones[-1] if long_ones else -1
    # Everything asked of an element (its signature, its alike siblings, its link density,
    # the chrome above it) is computed once per element and page, whatever number of
    # blocks share it.
    tree = Surroundings()
    parents = [s.element.getparent() for s in found]
    signature = tree.signature
    pairs = [(signature(s.element), signature(p)) for s, p in zip(found, parents, strict=True)]
    in_page = Counter(pairs)
    number = len(found)
    page = [math.log1p(number), math.log1p(total)]
    rows: list[list[float]] = []
    before = 0
    under_boilerplate = 0.0
    for index, segment in enumerate(found):
        element = segment.element
        text = texts[index]
        block_words = words[index]
        if segment.kind == "heading":
            under_boilerplate = float(names_a_box(text))
        parent = parents[index]
        grandparent = parent.getparent() if parent is not None else None
        stripped = text.rstrip()
        count = counts[index]
        tag = element.tag
        grams = list(zip(block_words, block_words[1:], block_words[2:], strict=False))
        phrase = f" {' '.join(block_words)} " if len(block_words) < 3 else ""
        row = [
            _KIND_CODES[segment.kind],
            owner_tag(tag),
            float(_HEADINGS.get(tag, 0) if isinstance(tag, str) else 0),
            float(segment.loose),
            *places.chain(element),
            math.log1p(count),
            math.log1p(len(stripped)),
            _link_density(segment.markdown, text),
            tree.density(parent),
            tree.density(grandparent),
            index / number,
            before / total,
            float(stripped.endswith((".", "!", "?", '."', ".”", ":"))),
            len(_DIGIT.findall(stripped)) / max(len(stripped), 1),
            float(count <= SHORT_WORDS and names_a_box(stripped)),
            under_boilerplate,
            *tree.alike(element),
            math.log1p(in_page[pairs[index]]),
            *(lookup.share(block_words, phrase, grams) for lookup in lookups),
            float(first_long >= 0 and index < first_long),
            float(last_long >= 0 and index > last_long),
            *tree.chrome(element),
            *page,
        ]
        rows.append(row)
        before += count
    # The page's context is the same for every block: broadcast, not copied row by row.
    matrix = numpy.empty((number, len(SEGMENT_FEATURES) + len(context)))
    matrix[:, : len(SEGMENT_FEATURES)] = rows
    matrix[:, len(SEGMENT_FEATURES) :] = context
    return matrix


def _link_density(markdown: str, text: str) -> float:
    if "](" not in markdown:
        return 0.0
    # A heading's or list item's marker is not text of the block.
    shown = len(_MARKER.sub("", text, count=1).strip())
    if not shown:
        return 0.0
    linked = sum(len(m.group(1)) for m in _LINK_LABEL.finditer(markdown))
    return min(1.0, linked / shown)


# -- the reading -------------------------------------------------------------------------


def assemble(found: Sequence[Segment], keep: Sequence[bool]) -> str:
    """The kept blocks in document order as Markdown: consecutive kept rows of one table
    become a Markdown table (its first kept row the header)."""
    parts: list[str] = []
    table: list[Segment] = []
    for segment, kept in zip(found, keep, strict=True):
        if not kept:
            continue
        if segment.kind == "row":
            if table and table[-1].table != segment.table:
                parts.append(_table(table))
                table = []
            table.append(segment)
            continue
        if table:
            parts.append(_table(table))
            table = []
        parts.append(segment.markdown)
    if table:
        parts.append(_table(table))
    return _BLANK_RUNS.sub("\n\n", "\n\n".join(parts)).strip()


def _table(rows: list[Segment]) -> str:
    if len(rows) == 1:
        # One row is not a table: its cells as a line of text.
        return " ".join(cell for cell in rows[0].cells if cell)
    width = max(len(row.cells) for row in rows)
    lines = [
        "| " + " | ".join([*row.cells, *([""] * (width - len(row.cells)))]) + " |" for row in rows
    ]
    lines.insert(1, "|" + "---|" * width)
    return "\n".join(lines)


#: A model's chance of being content for each row of a matrix of block rows.
Chances = Callable[[numpy.ndarray], list[float]]


def dom_reading(
    found: Sequence[Segment],
    rows: numpy.ndarray,
    chances: Chances,
    threshold: float,
) -> str:
    """The page's blocks whose chance of being content (``chances`` of their ``rows``) is at
    least ``threshold``, assembled; every block when none is (a page of a few lines is its
    own content), nothing for a page without blocks."""
    return assemble(found, kept(chances(rows) if found else [], threshold))


def dom_candidate(
    root: lxml_html.HtmlElement,
    base: str,
    readings: Mapping[str, str],
    places: Places,
    context: Sequence[float],
    chances: Chances,
    threshold: float,
    chrome: bool = False,
) -> str:
    """The ``dom`` reading of the page whose body is ``root``, finished as the other
    readings are (see :func:`segments`, :func:`segment_rows`, :func:`dom_reading`)."""
    found = segments(root, base, chrome)
    rows = segment_rows(found, readings, places, context)
    return finish(dom_reading(found, rows, chances, threshold), base)


def kept(chances: Sequence[float], threshold: float) -> list[bool]:
    """Which blocks stay at ``threshold``: those at least as likely, or all if none is."""
    keep = [chance >= threshold for chance in chances]
    return keep if any(keep) else [True] * len(keep)
