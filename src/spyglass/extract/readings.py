"""The three readings of a page's main content that extraction chooses between.

All are read from one parsed tree and finished the same way (repeated lines dropped, links
made absolute, blank runs collapsed), so they can be compared and any one returned as is:

- ``article``: trafilatura's article extraction (Markdown with links, tables, formatting;
  the page's characters without trafilatura's escapes, see :mod:`spyglass.extract.escapes`),
  on a declared article with the lines that open it above where trafilatura starts it
  (:mod:`spyglass.extract.article_lead`);
- ``region``: the visible text of the page's main region (listings, products, services);
- ``block``: the visible text of the element enclosing the article's paragraphs (the
  specifications beside a description, the replies under a first post).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import islice

import trafilatura
from lxml import etree
from lxml import html as lxml_html

from spyglass.extract.article_container import content_container
from spyglass.extract.article_lead import with_lead
from spyglass.extract.escapes import unescape_prose
from spyglass.extract.links import LINK, is_link
from spyglass.extract.region import element_and_part_markdown, main_region, web_url
from spyglass.extract.repeated_lines import drop_repeated_lines
from spyglass.extract.tree import PageShape

#: Candidate names, in the order the chooser's model numbers them.
KINDS = ("article", "region", "block")
#: A page with more elements than this, or more text nodes inside paragraphs, gets no
#: article reading. Parts of trafilatura take time growing with the square of these: it
#: asks libxml2 for the paragraphs' text ("//p//text()"), whose answer is merged one node
#: set at a time (48,000 nodes: 7 s), and it takes trailing headings off its result one at
#: a time, counting the result each time (36,000 headings: 6 s); a page at
#: fetch.max_page_bytes would hold a worker for minutes. The most on 2,381 benchmark pages
#: is 15,795 elements and 1,802 paragraph texts, so no page read for what it says comes
#: near; the region and block readings, linear in the page, remain.
MAX_ELEMENTS = 25_000
MAX_PARAGRAPH_TEXTS = 20_000
_BLANK_RUNS = re.compile(r"\n{3,}")
_ABSOLUTE = re.compile(r"https?://[^\s/?#]+(?:[/?#]\S*)?$")


@dataclass(frozen=True)
class Candidates:
    """Each candidate's finished Markdown (empty when it found nothing)."""

    article: str
    region: str
    block: str
    #: Characters the longest candidate had before repeated lines were dropped.
    found: int
    #: The element the ``block`` reading was read from (None when there was none).
    container: lxml_html.HtmlElement | None = field(default=None, compare=False, repr=False)

    def by_kind(self) -> dict[str, str]:
        return {"article": self.article, "region": self.region, "block": self.block}


def candidates(
    tree: lxml_html.HtmlElement,
    base: str,
    index: dict[str, lxml_html.HtmlElement] | None = None,
    lead: bool = False,
    shape: PageShape | None = None,
) -> Candidates:
    """The article, region and block readings of ``tree``, links absolute against ``base``;
    ``index`` is the page's :func:`~spyglass.extract.block_markup.text_index` when already built;
    ``lead`` puts the article's opening lines from the region reading before the article
    reading (:func:`~spyglass.extract.article_lead.with_lead`); ``shape`` is what a walk over the
    page counted, when one has."""
    article = _article(tree, None if shape is None else shape.elements)
    container = content_container(tree, article, index)
    # One walk reads both when the block lies in the region, as it mostly does.
    region, block = element_and_part_markdown(main_region(tree, shape), base, container)
    found = max(len(article), len(region))
    known: dict[str, str] = {}
    linked: dict[str, str] = {}
    region = finish(region, base, known, linked)
    article = finish(article, base, known, linked)
    return Candidates(
        article=with_lead(article, region) if lead else article,
        region=region,
        block=finish(block, base, known, linked),
        found=found,
        container=container,
    )


def finish(
    markdown: str,
    base: str,
    known: dict[str, str] | None = None,
    linked: dict[str, str] | None = None,
) -> str:
    """Repeated lines dropped, links absolute, at most one blank line in a row (``known``
    as :func:`~spyglass.extract.repeated_lines.drop_repeated_lines` takes it, ``linked`` as
    :func:`absolute_links` does)."""
    markdown = absolute_links(drop_repeated_lines(markdown, known), base, linked)
    return collapse_blank_runs(markdown).strip()


def collapse_blank_runs(markdown: str) -> str:
    """``markdown`` with at most one blank line in a row."""
    # Most readings have no run of blank lines: a search for one is C's substring search,
    # several times faster than the pattern's look at every line end of a long reading.
    return _BLANK_RUNS.sub("\n\n", markdown) if "\n\n\n" in markdown else markdown


def _article(tree: lxml_html.HtmlElement, elements: int | None) -> str:
    if _beyond_trafilatura(tree, elements):
        return ""
    # No url: trafilatura would join relative links against the site root, not the page;
    # they stay relative here and absolute_links resolves them against the page's base.
    result = trafilatura.extract(
        tree,
        output_format="markdown",
        include_links=True,
        include_tables=True,
        include_formatting=True,
        with_metadata=False,
        # The article, not the readers' comments under it: untrusted text of other people
        # that a reader of the article did not ask for, and about a twentieth of the time
        # (docs/benchmarks.md, round nine). A page whose comments are its content (a forum
        # thread) is read by the region and block readings.
        include_comments=False,
        # Skips trafilatura's second pass (readability/justext comparison), about a third
        # of its time; the region and block candidates recover what that pass would.
        fast=True,
    )
    return unescape_prose(result or "")


def _beyond_trafilatura(tree: lxml_html.HtmlElement, elements: int | None) -> bool:
    """Whether ``tree`` (of ``elements`` elements, when known) has more than
    :data:`MAX_ELEMENTS` elements or more than :data:`MAX_PARAGRAPH_TEXTS` text nodes
    inside paragraphs."""
    if elements is None:
        elements = sum(1 for _ in islice(tree.iter(etree.Element), MAX_ELEMENTS + 1))
    if elements > MAX_ELEMENTS:
        return True
    # An element holds at most its text and its tail (trafilatura drops comments first), so
    # most pages need no count of their paragraphs' texts.
    if 2 * elements + 1 <= MAX_PARAGRAPH_TEXTS:
        return False
    # A paragraph inside another is counted twice: a count that errs only towards caution.
    texts = (text for paragraph in tree.iter("p") for text in paragraph.itertext())
    return next(islice(texts, MAX_PARAGRAPH_TEXTS, None), None) is not None


def absolute_links(markdown: str, base: str, known: dict[str, str] | None = None) -> str:
    """Rewrite every ``[text](target)`` so the target is an absolute http(s) URL.

    Targets with another scheme (``javascript:``, ``data:``) are dropped, keeping the text.
    ``known`` keeps each line's rewriting across calls with the same ``base`` (a page's
    readings share most of their lines); no link spans lines.
    """
    if known is not None:
        lines = markdown.split("\n")
        for number, line in enumerate(lines):
            # Every link starts with "[" (most lines have none).
            if "[" in line:
                done = known.get(line)
                if done is None:
                    done = known[line] = absolute_links(line, base)
                lines[number] = done
        return "\n".join(lines)

    def rewrite(match: re.Match[str]) -> str:
        if not is_link(match):
            return match.group(0)
        label = match.group(1)
        target = (match.group(2) if match.group(2) is not None else match.group(3)).strip()
        if not target:
            return label
        if _ABSOLUTE.match(target):
            # Already absolute (the region walker resolves its own): joining again is the
            # costliest part of finishing a link-heavy page and would not change it.
            return f"{label}({target})"
        absolute = web_url(base, target)
        if absolute is None:
            return label.lstrip("!")
        return f"{label}({absolute})"

    return LINK.sub(rewrite, markdown)
