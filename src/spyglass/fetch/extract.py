"""HTML to readable Markdown: trafilatura for the main content, visible text as fallback.

Links are made absolute against the page's final URL (or its ``<base href>``) so the model
can cite or fetch them; scripts, styles and navigation are dropped by trafilatura.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urljoin

import trafilatura
from lxml import html as lxml_html
from lxml.etree import ParserError

from spyglass.fetch.region import region_markdown

#: Below this many characters an extraction is treated as "no main content found".
_MIN_CONTENT_CHARS = 200
# [label](target), where trafilatura writes targets containing parentheses as (<target>).
_LINK = re.compile(r"(!?\[[^\]\n]*\])\((?:<([^<>\n]*)>|([^()\s]*(?:\([^()\s]*\)[^()\s]*)*))\)")
_BLANK_RUNS = re.compile(r"\n{3,}")
#: Share of the main region's visible text an article extraction must keep to be used.
_ARTICLE_SHARE = 0.5


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
    # trafilatura joins relative links against the site root only, so resolve them against
    # the page (and its <base href>) first.
    tree.make_links_absolute(base, resolve_base_href=False, handle_failures="discard")
    region = region_markdown(tree, base)
    markdown = _main_content(tree, base)
    if _visible_length(markdown) < _ARTICLE_SHARE * _visible_length(region):
        # The article extractor kept under half of the main region: this is a listing,
        # product, forum or service page, whose content is the whole region.
        markdown = region
    if len(markdown) < _MIN_CONTENT_CHARS:
        visible = trafilatura.html2txt(html) or ""
        if len(visible) > len(markdown):
            markdown = visible
    markdown = absolute_links(markdown, base)
    markdown = _BLANK_RUNS.sub("\n\n", markdown).strip()
    return Extracted(title, markdown)


def _main_content(tree: lxml_html.HtmlElement, url: str) -> str:
    result = trafilatura.extract(
        tree,
        url=url,
        output_format="markdown",
        include_links=True,
        include_tables=True,
        include_formatting=True,
        with_metadata=False,
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
