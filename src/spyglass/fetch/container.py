"""The element that holds an article extraction's text, to recover what it left out.

Article extractors keep the densest run of prose. On a product page that is the description
without the specifications next to it; on a forum, the first post without the replies. The
smallest element enclosing (nearly) all of the extracted paragraphs is the page's content
block: its full visible text brings those neighbours back without the page's navigation,
header and footer, which lie outside it.
"""

from __future__ import annotations

import re
from collections import defaultdict

from lxml import etree
from lxml import html as lxml_html

#: Words of a paragraph's start used to find it again in the page.
_KEY_WORDS = 6
#: A paragraph must start with at least this many words to be matched (short ones repeat).
_MIN_KEY_WORDS = 4
#: Extracted lines shorter than this are not looked up (labels, prices, bylines).
_MIN_LINE_CHARS = 40
#: Share of the matched text the container must enclose.
_SHARE = 0.95
_WORD = re.compile(r"\w+")
_LONG_TEXTS = etree.XPath(".//text()[string-length(normalize-space(.)) >= 20]")
_LINK = re.compile(r"!?\[([^\]\n]*)\]\([^)\n]*\)")


def _key(text: str) -> str:
    return " ".join(_WORD.findall(text.lower())[:_KEY_WORDS])


def content_container(tree: lxml_html.HtmlElement, markdown: str) -> lxml_html.HtmlElement | None:
    """Deepest element enclosing 95% of ``markdown``'s paragraphs, or None if none match."""
    body = tree.find(".//body")
    starts: dict[str, lxml_html.HtmlElement] = {}
    # XPath filters the text nodes in C; a Python walk over every element costs more.
    for text in _LONG_TEXTS(body if body is not None else tree):
        if not text.is_text:
            continue  # a tail belongs to the parent's flow, not to the element before it
        key = _key(text)
        if key.count(" ") + 1 >= _MIN_KEY_WORDS:
            starts.setdefault(key, text.getparent())
    weights: dict[lxml_html.HtmlElement, float] = defaultdict(float)
    total = 0.0
    for line in _LINK.sub(r"\1", markdown).split("\n"):
        line = line.strip()
        if len(line) < _MIN_LINE_CHARS:
            continue
        found = starts.get(_key(line))
        if found is None:
            continue
        total += len(line)
        ancestor: lxml_html.HtmlElement | None = found
        while ancestor is not None:
            weights[ancestor] += len(line)
            ancestor = ancestor.getparent()
    if not total:
        return None
    enclosing = [element for element, weight in weights.items() if weight >= _SHARE * total]
    # Enclosing elements form one chain from the root down; the deepest has most ancestors.
    return max(enclosing, key=lambda element: sum(1 for _ in element.iterancestors()))
