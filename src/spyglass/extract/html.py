"""HTML to readable Markdown: the main content, chosen among candidate readings by a model.

Three candidates are read from one tree, parsed as a browser parses the page
(:mod:`spyglass.extract.tree`; see :mod:`spyglass.extract.readings`): trafilatura's article
extraction, the visible text of the page's main region, and the visible text of the
element enclosing the article's paragraphs. A small learned model
(:mod:`spyglass.extract.learned`) predicts from the page's structure and the candidates'
shapes which one a reader would want; a second one then scores every block of that
reading (its shape, where it sits in the page's markup, what kind of page it is on, see
:mod:`spyglass.extract.blocks` and :mod:`spyglass.extract.block_markup`) and the unlikely
ones are left out, more strictly on a page that declares itself an article and in the article
reading (:mod:`spyglass.extract.thresholds`). The result comes with the page's declared
metadata as a short header. Links are absolute against the page's final URL (or its
``<base href>``) so
the model can cite or fetch them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import urlsplit

import trafilatura
from lxml import html as lxml_html

from spyglass.extract.block_markup import Places, text_index
from spyglass.extract.blocks import keep_content
from spyglass.extract.features import Described, described_page, rows
from spyglass.extract.learned import choose, content_chances
from spyglass.extract.metadata import Metadata, page_metadata, without_title
from spyglass.extract.readings import KINDS, Candidates, absolute_links, candidates
from spyglass.extract.region import web_url
from spyglass.extract.thresholds import declared_type, keep_threshold
from spyglass.extract.tree import meta_contents, parse, texts_inside

__all__ = ["Extracted", "absolute_links", "extract_html", "readings"]

#: Below this many characters an extraction is treated as "no main content found".
_MIN_CONTENT_CHARS = 200


@dataclass(frozen=True)
class Extracted:
    title: str | None
    #: The main content only, as Markdown.
    markdown: str
    metadata: Metadata = field(default_factory=Metadata)

    @property
    def text(self) -> str:
        """What the model reads: the metadata header, a blank line, then the content; with
        no content (a page built by scripts, read without them), the page's own description
        in the header, the one account of it there is."""
        header = self.metadata.header(described=not self.markdown)
        if not header:
            return self.markdown
        if not self.markdown:
            return header
        return f"{header}\n\n{self.markdown}"


@dataclass(frozen=True)
class Readings:
    """Everything extraction decides from: the candidates and one feature row for each."""

    found: Candidates
    rows: list[list[float]]
    page: dict[str, float]
    #: Where the readings' blocks sit in the page, for the block model.
    places: Places
    #: Each reading's numbers and words by its text, for rows of more readings.
    described: Described = field(default_factory=dict)


def readings(tree: lxml_html.HtmlElement, url: str) -> Readings:
    """The candidates of ``tree`` and their feature rows (also what training reads)."""
    base = _base_url(tree, url)
    index = text_index(tree)
    page, shape = described_page(tree, url)
    # Only a declared article gets its lead: elsewhere that place holds other things (a
    # forum thread's posters and dates), see spyglass.extract.article_lead.
    lead = declared_type(page) == "article"
    found = candidates(tree, base, index, lead=lead, shape=shape)
    described: Described = {}
    return Readings(
        found, rows(page, found, described), page, Places(index, found.container), described
    )


def extract_html(html: str, url: str) -> Extracted:
    """Title, metadata and Markdown of the main content of ``html``; never raises on bad markup."""
    tree = parse(html)
    if tree is None:
        return Extracted(None, "")
    url = _parsable(url)
    title = _title(tree)
    read = readings(tree, url)
    texts = with_fallback(read.found, tree)
    chosen = KINDS[choose(read.rows)]
    if not texts[chosen]:
        # An empty reading is never the answer while another one has text.
        chosen = max(KINDS, key=lambda kind: len(texts[kind]))
    context = read.rows[KINDS.index(chosen)]
    threshold = keep_threshold(read.page, chosen)
    markdown = keep_content(chosen, texts, content_chances, threshold, context, read.places)
    metadata = page_metadata(tree, url)
    return Extracted(title, without_title(markdown, metadata.title), metadata)


def with_fallback(found: Candidates, tree: lxml_html.HtmlElement) -> dict[str, str]:
    """Each candidate's text by kind; the page's whole visible text for those shorter than
    it when no candidate found content (a page of a few lines, a script-built shell)."""
    texts = found.by_kind()
    if found.found >= _MIN_CONTENT_CHARS:
        return texts
    # The parsed tree, not the markup: html2txt copies it instead of parsing the page again.
    visible = (trafilatura.html2txt(tree) or "").strip()
    return {kind: visible if len(visible) > len(text) else text for kind, text in texts.items()}


def _title(tree: lxml_html.HtmlElement) -> str | None:
    declared = meta_contents(tree, "property", "og:title")
    for values in (declared, texts_inside(tree, "title"), texts_inside(tree, "h1")):
        text = " ".join(str(value) for value in values).strip()
        if text:
            return " ".join(text.split())[:300]
    return None


def _parsable(url: str) -> str:
    """``url``, or ``""`` when it does not parse (an unclosed IPv6 bracket): the page is then
    read as one without an address rather than not read."""
    try:
        urlsplit(url)
    except ValueError:
        return ""
    return url


def _base_url(tree: lxml_html.HtmlElement, url: str) -> str:
    hrefs = tree.xpath("//base/@href")
    if hrefs:
        # A malformed address or another scheme leaves the page's own URL as the base.
        joined = web_url(url, str(hrefs[0]).strip())
        if joined is not None:
            return joined
    return url
