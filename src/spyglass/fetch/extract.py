"""HTML to readable Markdown: the main content, chosen among three candidates.

Candidates, all read from one parsed tree: trafilatura's article extraction; the visible
text of the page's main region (for listings, products, forums, services); and the visible
text of the element enclosing the article's paragraphs (for the specifications or replies
next to them). Lines repeating earlier ones are dropped from each, then the article is
used unless it keeps too small a share of a larger candidate. Links are made absolute
against the page's final URL (or its ``<base href>``) so the model can cite or fetch them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urljoin

import trafilatura
from lxml import html as lxml_html
from lxml.etree import ParserError

from spyglass.fetch.container import content_container
from spyglass.fetch.region import element_markdown, region_markdown
from spyglass.fetch.repeats import drop_repeated_lines

#: Below this many characters an extraction is treated as "no main content found".
_MIN_CONTENT_CHARS = 200
# [label](target), where trafilatura writes targets containing parentheses as (<target>).
_LINK = re.compile(r"(!?\[[^\]\n]*\])\((?:<([^<>\n]*)>|([^()\s]*(?:\([^()\s]*\)[^()\s]*)*))\)")
_BLANK_RUNS = re.compile(r"\n{3,}")
#: Share of the main region's visible text an article extraction must keep to be used.
_ARTICLE_SHARE = 0.4
#: Share of its enclosing block's visible text an article extraction must keep to be used.
_CONTAINER_SHARE = 0.8


@dataclass(frozen=True)
class Extracted:
    title: str | None
    markdown: str


def extract_html(html: str, url: str) -> Extracted:
    """Title and Markdown of the main content of ``html``; never raises on bad markup."""
    try:
        tree = lxml_html.document_fromstring(html)
    except (ParserError, ValueError):
        return Extracted(None, "")
    title = _title(tree)
    base = _base_url(tree, url)
    article = _main_content(tree)
    whole_region = region_markdown(tree, base)
    found = max(len(article), len(whole_region))
    markdown = drop_repeated_lines(article)
    region = drop_repeated_lines(whole_region)
    if _visible_length(markdown) < _ARTICLE_SHARE * _visible_length(region):
        # The article extractor kept little of the main region: this is a listing,
        # product, forum or service page, whose content is the whole region.
        markdown = region
    else:
        container = content_container(tree, markdown)
        if container is not None:
            block = drop_repeated_lines(element_markdown(container, base))
            if _visible_length(markdown) < _CONTAINER_SHARE * _visible_length(block):
                # The extractor dropped much of the block its paragraphs sit in: the
                # specifications beside a description, the replies under a first post.
                markdown = block
    if found < _MIN_CONTENT_CHARS:
        visible = trafilatura.html2txt(html) or ""
        if len(visible) > len(markdown):
            markdown = visible
    markdown = absolute_links(markdown, base)
    markdown = _BLANK_RUNS.sub("\n\n", markdown).strip()
    return Extracted(title, markdown)


def _main_content(tree: lxml_html.HtmlElement) -> str:
    # No url: trafilatura would join relative links against the site root, not the page;
    # they stay relative here and absolute_links resolves them against the page's base.
    result = trafilatura.extract(
        tree,
        output_format="markdown",
        include_links=True,
        include_tables=True,
        include_formatting=True,
        with_metadata=False,
        # Skips trafilatura's second pass (readability/justext comparison), about a third
        # of its time; the region and container candidates recover what that pass would.
        fast=True,
    )
    return result or ""


def _visible_length(markdown: str) -> int:
    """Characters a reader sees: link targets do not count."""
    return len(_LINK.sub(lambda m: m.group(1), markdown))


def _title(tree: lxml_html.HtmlElement) -> str | None:
    for xpath in ('//meta[@property="og:title"]/@content', "//title//text()", "//h1//text()"):
        values = tree.xpath(xpath)
        text = " ".join(str(v) for v in values).strip() if values else ""
        if text:
            return " ".join(text.split())[:300]
    return None


def _base_url(tree: lxml_html.HtmlElement, url: str) -> str:
    hrefs = tree.xpath("//base/@href")
    if hrefs:
        joined = urljoin(url, str(hrefs[0]).strip())
        if joined.startswith(("http://", "https://")):
            return joined
    return url


def absolute_links(markdown: str, base: str) -> str:
    """Rewrite every ``[text](target)`` so the target is an absolute http(s) URL.

    Targets with another scheme (``javascript:``, ``data:``) are dropped, keeping the text.
    """

    def rewrite(match: re.Match[str]) -> str:
        label = match.group(1)
        target = (match.group(2) if match.group(2) is not None else match.group(3)).strip()
        if not target:
            return label
        absolute = urljoin(base, target)
        if not absolute.startswith(("http://", "https://")):
            return label.lstrip("!")
        return f"{label}({absolute})"

    return _LINK.sub(rewrite, markdown)
