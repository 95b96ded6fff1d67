"""What the blocks of a page's DOM reading ask of the elements holding them, each answer
computed once per element and page.

Many blocks share a parent (the paragraphs of an article, the cards of a grid), and the
features of :mod:`bench.segments` describe a block by its surroundings: its
element's signature (tag and class), how many siblings share it at its level and the two
above, the link density of the text around it, and how far up the nearest navigation,
header, footer, aside or form is. Each is memoised per element here, so describing a page
costs one look at each element asked about rather than one per block.
"""

from __future__ import annotations

import math
from collections import Counter

from lxml import html as lxml_html

#: How many levels (the block's element, its parent, its grandparent) count alike siblings.
SIBLING_LEVELS = 3


_CHROME_CODES = {"nav": 1.0, "header": 2.0, "footer": 3.0, "aside": 4.0, "form": 5.0}
_NO_SIGNATURE: tuple[object, str] = ("", "")


class Surroundings:
    """What the blocks of one page ask of their elements, each computed once per element:
    its signature (tag and class), how many siblings share it at its level and the two
    above (a card's title sits two levels below the repeated card), the link density of
    its text, and how far up the nearest navigation, header, footer, aside or form is."""

    def __init__(self) -> None:
        self._signatures: dict[lxml_html.HtmlElement, tuple[object, str]] = {}
        self._siblings: dict[lxml_html.HtmlElement, Counter[tuple[object, str]]] = {}
        self._alike: dict[lxml_html.HtmlElement, tuple[float, ...]] = {}
        self._densities: dict[lxml_html.HtmlElement, float] = {}
        self._link_lengths: dict[lxml_html.HtmlElement, int] = {}
        self._chrome: dict[lxml_html.HtmlElement, tuple[float, float]] = {}

    def signature(self, element: lxml_html.HtmlElement | None) -> tuple[object, str]:
        if element is None:
            return _NO_SIGNATURE
        found = self._signatures.get(element)
        if found is None:
            names = element.get("class")
            found = (element.tag, " ".join(names.split()) if names else "")
            self._signatures[element] = found
        return found

    def alike(self, element: lxml_html.HtmlElement) -> tuple[float, ...]:
        """For the element and the two levels above it, how many of its siblings share its
        signature (log, 0 where there is no level)."""
        # Up to the first element already described (or the root), then back down: pages
        # nest deeper than Python's recursion allows.
        path = []
        current: lxml_html.HtmlElement | None = element
        while current is not None and current not in self._alike:
            path.append(current)
            current = current.getparent()
        above = self._alike[current] if current is not None else (0.0,) * SIBLING_LEVELS
        for node in reversed(path):
            parent = node.getparent()
            if parent is None:
                above = (0.0,) * SIBLING_LEVELS
            else:
                counts = self._siblings.get(parent)
                if counts is None:
                    counts = Counter(map(self.signature, parent))
                    self._siblings[parent] = counts
                own = math.log1p(counts[self.signature(node)] - 1)
                above = (own, *above[: SIBLING_LEVELS - 1])
            self._alike[node] = above
        return above

    def density(self, element: lxml_html.HtmlElement | None) -> float:
        """The share of the element's text (stripped) that is the text of its links."""
        if element is None:
            return -1.0
        found = self._densities.get(element)
        if found is None:
            length = len(element.text_content().strip())
            found = 0.0
            if length:
                lengths = self._link_lengths
                linked = 0
                for link in element.iter("a"):
                    # A link sits under the parents and grandparents of many blocks: its
                    # text is read once.
                    size = lengths.get(link)
                    if size is None:
                        size = lengths[link] = len(link.text_content().strip())
                    linked += size
                found = min(1.0, linked / length)
            self._densities[element] = found
        return found

    def chrome(self, element: lxml_html.HtmlElement) -> tuple[float, float]:
        """How many levels up the nearest navigation, header, footer, aside or form is, and
        which (-1 and 0 for none)."""
        path = []
        current: lxml_html.HtmlElement | None = element
        while current is not None and current not in self._chrome:
            path.append(current)
            current = current.getparent()
        above = self._chrome[current] if current is not None else (-1.0, 0.0)
        for node in reversed(path):
            code = _CHROME_CODES.get(node.tag) if isinstance(node.tag, str) else None
            if code is not None:
                above = (0.0, code)
            elif above[0] >= 0:
                above = (above[0] + 1.0, above[1])
            self._chrome[node] = above
        return above
