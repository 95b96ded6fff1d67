"""The element that holds an article extraction's text, to recover what it left out.

Article extractors keep the densest run of prose. On a product page that is the description
without the specifications next to it; on a forum, the first post without the replies. The
smallest element enclosing (nearly) all of the extracted paragraphs is the page's content
block: its full visible text brings those neighbours back without the page's navigation,
header and footer, which lie outside it.
"""

from __future__ import annotations

from collections import defaultdict

from lxml import html as lxml_html

from spyglass.extract.block_markup import text_index, text_key
from spyglass.extract.links import link_text

#: A line must start with at least this many words to be looked up.
_MIN_KEY_WORDS = 4
#: Extracted lines shorter than this are not looked up (labels, prices, bylines).
_MIN_LINE_CHARS = 40
#: Share of the matched text the container must enclose.
_SHARE = 0.95


def content_container(
    tree: lxml_html.HtmlElement,
    markdown: str,
    index: dict[str, lxml_html.HtmlElement] | None = None,
) -> lxml_html.HtmlElement | None:
    """Deepest element enclosing 95% of ``markdown``'s paragraphs, or None if none match;
    ``index`` is the page's :func:`~spyglass.extract.block_markup.text_index` when already built."""
    starts = text_index(tree) if index is None else index
    weights: dict[lxml_html.HtmlElement, float] = defaultdict(float)
    total = 0.0
    for line in link_text(markdown).split("\n"):
        line = line.strip()
        if len(line) < _MIN_LINE_CHARS:
            continue
        key = text_key(line)
        # Short starts repeat across a page; only a start of several words places a line.
        found = starts.get(key) if key.count(" ") + 1 >= _MIN_KEY_WORDS else None
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
