"""A page's document tree, as a browser builds it.

Pages are parsed by libxml2 (through lxml), whose trees every reading and trafilatura walk.
On most pages its tree is the one a browser builds; on a few it is not, and then what the
page shows can end up inside its header, navigation or a closed pop-up, or outside the
document altogether, where no reading looks:

- libxml2 ignores the end tag of a block (``</header>``, ``</aside>``, ``</section>``,
  ``</ul>``, …) while an element it ranks higher (a ``<div>``, a table's parts) is still
  open inside it, so everything after stays in that block; the HTML standard closes the
  block there (about one page in twenty of the benchmark pages; on one in seventy the
  page's text lands in its header or navigation);
- markup after ``</html>`` (a template that closed the page above its article) becomes a
  second root beside the document's, where a browser parses it into the body.

libxml2 reports the first in its error log, and those pages are parsed again by lexbor
(through selectolax), an HTML parser that follows the standard, its tree copied into lxml's
elements; the second is mended in libxml2's tree, the second root's content moved into the
body. The rest keep libxml2's tree, which is faster to build and which the models learned
on (a standard tree also differs in how it places text misplaced in tables, and on pages
that only end late, moving that text cost more than it gained: docs/benchmarks.md, round
twenty-three).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING, NamedTuple

from lxml import etree
from lxml import html as lxml_html
from lxml.etree import ParserError

if TYPE_CHECKING:
    from selectolax.lexbor import LexborNode

__all__ = [
    "PageShape",
    "attribute_values",
    "meta_contents",
    "parse",
    "texts_inside",
    "typed_scripts",
]

_XML_DECLARATION = re.compile(r"^\s*<\?xml[^>]*\?>")
# Characters lxml will not hold in text (libxml2 leaves them out of its own trees).
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
# libxml2's report of an end tag met while another element is open inside: it closes that
# element too unless it ranks it higher (its end priorities), and then ignores the end tag.
_MISMATCH = re.compile(r"Opening and ending tag mismatch: ([a-z0-9]+) and ([a-z0-9]+)")
_RANKED_HIGHER = frozenset(["div", "td", "th", "tr", "thead", "tbody", "tfoot", "table"])
# Elements whose end tag closes whatever is open inside them (the HTML standard's "an end
# tag whose tag name is one of …", and p and list items), which libxml2 may ignore instead.
_CLOSES_INSIDE = frozenset(
    (  # noqa: SIM905 (one list of words reads better than one name a line)
        "address article aside blockquote button center details dialog dir dl fieldset "
        "figcaption figure footer header hgroup listing main menu nav ol pre search section "
        "summary ul li dd dt p"
    ).split()
)
#: libxml2's own limit (without its "huge" option); a rebuilt tree goes no deeper.
_MAX_DEPTH = 256
_LOCAL = threading.local()


def _html_parser() -> etree.HTMLParser:
    """lxml.html's parser, but every element an :class:`~lxml.html.HtmlElement`.

    lxml.html picks each element's class in Python (forms and inputs get their own), once
    for every element object created, and extraction creates hundreds of thousands of them
    (ours and trafilatura's walks, trafilatura's copies); a lookup done in C gives the same
    tree and text in about a tenth of the time. Nothing here uses the form classes' extras.
    """
    parser = etree.HTMLParser()
    parser.set_element_class_lookup(
        etree.ElementDefaultClassLookup(
            element=lxml_html.HtmlElement,
            comment=lxml_html.HtmlComment,
            pi=lxml_html.HtmlProcessingInstruction,
            entity=lxml_html.HtmlEntity,
        )
    )
    return parser


def _parser() -> etree.HTMLParser:
    # One per thread: a parser's error log, read after the parse, is its last parse's.
    parser: etree.HTMLParser | None = getattr(_LOCAL, "parser", None)
    if parser is None:
        parser = _LOCAL.parser = _html_parser()
    return parser


def parse(html: str) -> lxml_html.HtmlElement | None:
    """The document tree of ``html`` as a browser builds it, or None when there is none to
    read."""
    # lxml refuses text that still declares a byte encoding; the text is decoded already.
    # Matched at the start only: a substitution would try every position of the page.
    declaration = _XML_DECLARATION.match(html)
    if declaration is not None:
        html = html[declaration.end() :]
    parser = _parser()
    try:
        tree: lxml_html.HtmlElement = lxml_html.document_fromstring(html, parser=parser)
    except (ParserError, ValueError):
        return None
    if _closed_late(parser.error_log):
        standard = _standard_tree(html, parser)
        if standard is not None:
            return standard
    _adopt_trailing(tree)
    return tree


def texts_inside(
    root: lxml_html.HtmlElement, tag: str, not_under: tuple[str, ...] = ()
) -> Iterator[str]:
    """The text nodes inside ``tag`` elements below ``root``, each once, in document order
    (XPath's ``.//tag//text()``), leaving out elements with an ancestor in ``not_under``;
    lazily, so a caller counting words stops early.

    Walked rather than asked of XPath: libxml2 answers ``//tag//text()`` (and
    ``.//text()[…]``) by merging the nodes each element adds into the result one set at a
    time, checking each against all before it, in time growing with the square of their
    number; a list of 32,000 links took seconds, a crafted page far longer.
    """
    for element in root.iterdescendants(tag):
        # One inside another was read with it (or is under what is left out too).
        if next(element.iterancestors(tag, *not_under), None) is None:
            yield from element.itertext()


class PageShape(NamedTuple):
    """What a walk over every element of a page counted, for the readers that would
    otherwise search the whole page for it."""

    #: How many elements the page has.
    elements: int
    #: How many ``<main>`` elements it has.
    mains: int
    #: How many elements other than ``<main>`` say ``role="main"``.
    role_mains: int


def meta_contents(root: lxml_html.HtmlElement, attribute: str, value: str) -> list[str]:
    """The ``content`` of every ``<meta>`` below ``root`` whose ``attribute`` is ``value``,
    in the page's order (XPath's ``//meta[@attribute='value']/@content``)."""
    return list(attribute_values(root, "meta", attribute, value, "content"))


def attribute_values(
    root: lxml_html.HtmlElement, tag: str, attribute: str, value: str, wanted: str
) -> Iterator[str]:
    """The ``wanted`` attribute of every ``tag`` element below ``root`` whose ``attribute``
    is ``value``, in the page's order and lazily (XPath's
    ``//tag[@attribute='value']/@wanted``).

    Walked by tag rather than asked of XPath: libxml2 tests the predicate on every element
    of the page, about a quarter of a millisecond on a large one; lxml's walk by tag looks
    at the ``tag`` elements alone."""
    for element in root.iter(tag):
        found = element.get(wanted)
        if found is not None and element.get(attribute) == value:
            yield found


def typed_scripts(root: lxml_html.HtmlElement, kind: str) -> list[str]:
    """The text of every ``<script type="kind">`` below ``root``, in the page's order (XPath's
    ``//script[@type='kind']/text()``, walked as :func:`meta_contents` walks)."""
    return [
        script.text
        for script in root.iter("script")
        if script.text is not None and script.get("type") == kind
    ]


def _adopt_trailing(tree: lxml_html.HtmlElement) -> None:
    """Move what libxml2 put in a second root after ``</html>`` into the body."""
    following = tree.getnext()
    if following is None:
        return
    body = tree.find("body")
    if body is None:
        body = etree.SubElement(tree, "body")
    while following is not None:
        after = following.getnext()
        if following.tag == "html":
            # The second root's own head holds no shown text; its body's content, or its
            # other content, is the page's.
            _append_text(body, following.text)
            following.text = None
            for child in list(following):
                if child.tag == "body":
                    _append_text(body, child.text)
                    child.text = None
                    body.extend(list(child))
                elif child.tag != "head":
                    body.append(child)
            # The emptied second root stays where it is: lxml cannot remove a root.
        elif isinstance(following.tag, str):
            body.append(following)
        following = after


def _closed_late(log: etree._ListErrorLog) -> bool:
    """Whether libxml2 left a block open past its end tag."""
    for error in log:
        match = _MISMATCH.match(error.message or "")
        if match and match.group(1) in _CLOSES_INSIDE and match.group(2) in _RANKED_HIGHER:
            return True
    return False


def _standard_tree(html: str, parser: etree.HTMLParser) -> lxml_html.HtmlElement | None:
    """``html`` parsed by lexbor, copied into lxml's elements (None if lexbor reads no
    document, or one nested deeper than :data:`_MAX_DEPTH`)."""
    from selectolax.lexbor import LexborHTMLParser

    document = LexborHTMLParser(_NOT_XML.sub("", html))
    source = document.root
    if source is None or source.tag != "html":
        return None
    root: lxml_html.HtmlElement = parser.makeelement("html", _attributes(source))
    # In document order, each element's children before its next sibling (text joins the
    # last thing copied), with a stack, not recursion.
    stack = [(source.iter(include_text=True), root)]
    while stack:
        children, element = stack[-1]
        child = next(children, None)
        if child is None:
            stack.pop()
            continue
        tag = child.tag
        if tag == "-text":
            _append_text(element, child.text_content)
        elif tag == "-comment":
            _append_comment(element, child.comment_content)
        elif tag and tag[0] != "-":
            if len(stack) > _MAX_DEPTH:
                # As deep as libxml2 reads: deeper trees are for pathological markup, and
                # the readers' walks are not made for them.
                return None
            # An element lxml will not name (a tag run into its attribute,
            # ``<metaname="x">``) gives its content to its parent, where it is shown.
            copy = _element(element, tag, _attributes(child))
            stack.append((child.iter(include_text=True), element if copy is None else copy))
    return root


def _attributes(node: LexborNode) -> dict[str, str]:
    """``node``'s attributes, a bare one (``hidden``) as an empty value."""
    return {name: value or "" for name, value in node.attributes.items()}


def _element(
    parent: lxml_html.HtmlElement, tag: str, attributes: dict[str, str]
) -> lxml_html.HtmlElement | None:
    """A child element of ``parent``; attributes lxml will not name are left out, and an
    element it will not name is none."""
    try:
        child: lxml_html.HtmlElement = etree.SubElement(parent, tag)
    except ValueError:
        return None
    for name, value in attributes.items():
        try:
            child.set(name, value)
        except (ValueError, TypeError):
            continue
    return child


def _append_text(element: lxml_html.HtmlElement, text: str | None) -> None:
    """``text`` after everything ``element`` holds."""
    if not text:
        return
    if len(element):
        last = element[-1]
        last.tail = (last.tail or "") + text
    else:
        element.text = (element.text or "") + text


def _append_comment(element: lxml_html.HtmlElement, text: str | None) -> None:
    try:
        element.append(etree.Comment(text or ""))
    except ValueError:
        # A comment lxml cannot write ("--" inside it) is nothing a reader sees.
        return
