"""Where a block of a reading sits in the page's markup, for the boilerplate model.

A reading is Markdown; the page is a tree. A block is found again in the tree by the first
words of its text (the index :func:`text_index` builds once per page, shared with
:mod:`spyglass.extract.article_container`), and is then described by its surroundings: how deep it
sits, whether it is inside an ``<article>``, ``<main>`` or the content block, the element
that holds it, and how far up the nearest ancestor is whose class or id names a kind of
box — related stories, comments, an author bio, a share bar, tags, ads, a sidebar, cards of
a grid, reviews, a product's offer, or on the contrary the post's body. Names are matched
as word parts shared across sites, never as one site's markup; the model weighs them
(whether a review is content depends on the page, not on its box's name). A block not
found in the tree gets missing values (NaN), which the model treats as unknown.
"""

from __future__ import annotations

import functools
import math
import re
from collections import Counter
from collections.abc import Iterator

from lxml import html as lxml_html

from spyglass.extract.links import link_text

_WORD = re.compile(r"\w+")
#: Words of a text's start used to find it again in the page.
KEY_WORDS = 6
_KEY_CHARS = 200
#: Kinds of box by the names sites give them; a name matches as a part of a class or id.
_NAMED = {
    "related": r"related|recommend|more-?from|popular|trending|read-?next|also|suggest|promo",
    "comment": r"comment|repl(?:y|ies)|discussion|respond|disqus",
    "author": r"author|byline|bio\b|profile|avatar|contributor|writer",
    "share": r"share|sharing|social|follow",
    "tags": r"tags?\b|categor|topics?\b|keyword|label",
    "ads": r"\bads?\b|advert|sponsor|banner|dfp|outbrain|taboola",
    "side": r"sidebar|widget|aside|rail|column",
    "card": r"card|tile|grid|item|feed|list|thumb|excerpt|summary|teaser",
    "chrome": r"footer|header|nav|menu|breadcrumb|masthead|copyright|cookie|newsletter|subscri",
    "body": r"content|article|post|entry|body|text|story|main|prose|markdown|description",
    "meta": r"meta|date|time|info|details?\b|caption|credit",
    "review": r"review|rating|testimonial|feedback|stars",
    "offer": r"price|spec|sku|stock|cart|variant|swatch|option|quantity",
}
_KINDS = list(_NAMED)
_NAME_PATTERNS = [re.compile(pattern) for pattern in _NAMED.values()]
_OWNER_TAGS = {
    tag: float(code)
    for code, tags in enumerate(
        [
            ("p",),
            ("li", "dd", "dt"),
            ("div", "section"),
            ("span", "a", "strong", "em", "b", "i", "small"),
            ("h1", "h2", "h3", "h4", "h5", "h6"),
            ("td", "th"),
            ("figcaption", "caption", "figure"),
            ("blockquote", "q", "cite"),
            ("pre", "code"),
        ],
        start=1,
    )
    for tag in tags
}
#: Elements that hold a block of text (the one a block's first words sit in may be a link).
_HOLDERS = frozenset(
    [
        "p",
        "li",
        "dd",
        "dt",
        "div",
        "section",
        "article",
        "main",
        "body",
        "td",
        "th",
        "blockquote",
        "figcaption",
        "figure",
        "pre",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "header",
        "footer",
        "aside",
        "nav",
        "ul",
        "ol",
        "table",
        "form",
    ]
)
_MISSING = float("nan")
#: How many ancestors up a named box still counts (farther is "none").
_REACH = 12
#: What :meth:`Places.chain` says of an element.
CHAIN_FEATURES = [
    "depth",
    "in_article_tag",
    "in_main_tag",
    "in_content_block",
    *(f"up_to_{name}" for name in _NAMED),
]
PLACE_FEATURES = [
    "found_in_tree",
    "depth",
    "in_article_tag",
    "in_main_tag",
    "in_content_block",
    "owner_tag",
    "owner_siblings_alike",
    "owner_link_density",
    *(f"up_to_{name}" for name in _NAMED),
]


def owner_tag(tag: object) -> float:
    """The code of an element's tag among the kinds of element that hold text (0 for
    others)."""
    return _OWNER_TAGS.get(tag if isinstance(tag, str) else "", 0.0)


def text_key(text: str) -> str:
    """The first words of ``text``, lower-case: how a text is found again in the page."""
    # Six words fit in far fewer characters; long texts need not be scanned to their end.
    return " ".join(_WORD.findall(text[:_KEY_CHARS].lower())[:KEY_WORDS])


def text_index(tree: lxml_html.HtmlElement) -> dict[str, lxml_html.HtmlElement]:
    """The element holding each text of the page's body, by :func:`text_key` (the first
    element wins when a text repeats; a tail is held by its element's parent)."""
    body = tree.find(".//body")
    starts: dict[str, lxml_html.HtmlElement] = {}
    # A page repeats texts ("Share", "Read more", a price): a text placed once is placed.
    placed: set[str] = set()
    for text, holder in _texts(body if body is not None else tree):
        if text in placed or text.isspace() or holder is None:
            continue
        placed.add(text)
        key = text_key(text)
        if key and key not in starts:
            starts[key] = holder
    return starts


def _texts(
    root: lxml_html.HtmlElement,
) -> Iterator[tuple[str, lxml_html.HtmlElement | None]]:
    """Each text node below ``root`` in document order, with the element holding it.

    Walked rather than asked of XPath ("descendant::text()"), whose answer lxml and libxml2
    put in document order by walking back over a text node's siblings, and not with
    ``etree.iterwalk``, which does the same over comments: on a page of words between
    comments either grows with the square of the nodes (2.5 s for 17,000).
    """
    if root.text:
        yield root.text, root
    # The open elements from root down: an element's tail follows everything inside it.
    chain = [root]
    for node in root.iterdescendants():
        parent = node.getparent()
        while chain[-1] is not parent:
            done = chain.pop()
            if done.tail:
                yield done.tail, chain[-1]
        if isinstance(node.tag, str):
            if node.text:
                yield node.text, node
            chain.append(node)
        elif node.tail:
            # A comment's or an instruction's tail is its parent's text.
            yield node.tail, parent
    while len(chain) > 1:
        done = chain.pop()
        if done.tail:
            yield done.tail, chain[-1]


def find(index: dict[str, lxml_html.HtmlElement], text: str) -> lxml_html.HtmlElement | None:
    """The element holding the start of ``text``: the longest of its first words that an
    indexed text starts with (a block's first words may span a link and its neighbour)."""
    words = _WORD.findall(text[:_KEY_CHARS].lower())[:KEY_WORDS]
    for count in range(len(words), min(len(words), 2) - 1, -1):
        found = index.get(" ".join(words[:count]))
        if found is not None:
            return found
    return None


class Places:
    """Describes the blocks of a page's readings by where their text sits in the tree."""

    def __init__(
        self,
        index: dict[str, lxml_html.HtmlElement],
        container: lxml_html.HtmlElement | None,
    ) -> None:
        self._index = index
        self._container = container
        self._chains: dict[lxml_html.HtmlElement, tuple[float, ...]] = {}
        # Each distinct chain once: most elements of a page sit where their siblings do, and
        # a page of a hundred thousand paragraphs would otherwise keep as many copies.
        self._distinct: dict[tuple[float, ...], tuple[float, ...]] = {}
        self._densities: dict[lxml_html.HtmlElement, float] = {}
        self._tags: dict[lxml_html.HtmlElement, Counter[object]] = {}

    def row(self, markdown: str) -> list[float]:
        """The :data:`PLACE_FEATURES` of one block of Markdown."""
        found = find(self._index, link_text(markdown))
        if found is None:
            return [0.0, *([_MISSING] * (len(PLACE_FEATURES) - 1))]
        holder = found
        while holder.tag not in _HOLDERS and holder.getparent() is not None:
            holder = holder.getparent()
        chain = self.chain(holder)
        parent = holder.getparent()
        alike = self._children(parent)[holder.tag] if parent is not None else 0
        return [
            1.0,
            *chain[:4],
            owner_tag(holder.tag),
            math.log1p(alike),
            self._link_density(holder),
            *chain[4:],
        ]

    def chain(self, element: lxml_html.HtmlElement) -> tuple[float, ...]:
        """Where ``element`` sits (:data:`CHAIN_FEATURES`): its depth, whether it is in an
        ``<article>``, in ``<main>``, in the content block, then how many levels up the
        nearest ancestor naming each kind of box is (-1 for none within reach); memoised
        for ``element`` and every ancestor with more than one child."""
        # Up to the first element already described (or the root), then back down: pages
        # nest deeper than Python's recursion allows.
        path = []
        current: lxml_html.HtmlElement | None = element
        while current is not None and current not in self._chains:
            path.append(current)
            current = current.getparent()
        above = (
            self._chains[current]
            if current is not None
            else (0.0, 0.0, 0.0, 0.0, *([-1.0] * len(_KINDS)))
        )
        for node in reversed(path):
            described = tuple(self._describe(node, above))
            above = self._distinct.setdefault(described, described)
            # An element with one child is reached again only through that child, whose
            # walk stops at the next element kept: keeping it too would hold every element
            # of a page nested hundreds deep (about 150 bytes each, a page at the cap's
            # 450,000 elements).
            if node is element or len(node) > 1:
                self._chains[node] = above
        return above

    def _describe(self, element: lxml_html.HtmlElement, above: tuple[float, ...]) -> list[float]:
        get = element.get
        tag = element.tag
        # Each kind one level farther than above (or out of reach), then those this element
        # names at 0: most elements name nothing, and build no string.
        own = [
            above[0] + 1.0,
            1.0 if above[1] or tag == "article" else 0.0,
            1.0 if above[2] or tag == "main" or get("role") == "main" else 0.0,
            1.0 if above[3] or element is self._container else 0.0,
            *[up + 1.0 if 0.0 <= up < _REACH else -1.0 for up in above[4:]],
        ]
        names, ident = get("class"), get("id")
        if names or ident:
            for position in _kinds_named(f"{names or ''} {ident or ''}".strip()):
                own[4 + position] = 0.0
        return own

    def _children(self, element: lxml_html.HtmlElement) -> Counter[object]:
        """How many children of each tag ``element`` has, counted once per element."""
        found = self._tags.get(element)
        if found is None:
            found = Counter(child.tag for child in element)
            self._tags[element] = found
        return found

    def _link_density(self, element: lxml_html.HtmlElement) -> float:
        found = self._densities.get(element)
        if found is None:
            found = _link_density(element)
            self._densities[element] = found
        return found


@functools.lru_cache(maxsize=4096)
def _kinds_named(names: str) -> frozenset[int]:
    """Positions in :data:`_KINDS` of the kinds of box ``names`` (class and id) name;
    cached, since a page repeats the same few class names on many elements."""
    lowered = names.lower()
    return frozenset(i for i, pattern in enumerate(_NAME_PATTERNS) if pattern.search(lowered))


def _link_density(element: lxml_html.HtmlElement) -> float:
    text = element.text_content()
    if not text.strip():
        return 0.0
    linked = sum(len(a.text_content()) for a in element.iter("a"))
    return min(1.0, linked / len(text))
