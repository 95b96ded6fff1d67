"""Which elements of a page a reader sees, and which are the page's chrome.

The region and block readings (:mod:`spyglass.extract.region`) and the page's segments
(``bench/segments.py``, the unshipped DOM reading) leave out the same things: what is never
shown (scripts, styles, form controls), what is hidden (the ``hidden`` attribute,
``display: none``) and the boxes around the content (navigation, headers, footers, asides,
forms, and blocks whose id, class or ARIA landmark names them as chrome). What only looks
like chrome is kept: a hidden box the page shows on demand (a tab's panel, an accordion's
answer), a form or a header that holds the content, a button that opens a disclosure, a
class naming a state or a layout (``has-sidebar``), a tag that already says what it holds,
and a box holding the page's ``<h1>``. ``aria-hidden`` hides from screen readers only: its
text is on screen.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator

from lxml import etree
from lxml import html as lxml_html

from spyglass.extract.tree import texts_inside

#: Elements whose text is never shown as it stands.
_UNSHOWN = frozenset(["script", "style", "noscript", "template"])
_SKIP_TAGS = _UNSHOWN | frozenset(
    [
        "svg",
        "iframe",
        "object",
        "canvas",
        "nav",
        "header",
        "footer",
        "aside",
        "form",
        "button",
        "select",
        "option",
        "input",
        "textarea",
        "dialog",
        "head",
        "title",
        "meta",
        "link",
    ]
)
#: Shown, but page chrome around the content: the region reader leaves them out.
_CHROME_TAGS = frozenset(["nav", "header", "footer", "aside", "form"])
_BOILERPLATE = re.compile(
    r"(^|[\s_-])(nav|navbar|navigation|menu|breadcrumbs?|footer|header|sidebar|cookies?|"
    r"consent|newsletter|social|share|sharing|popup|modal)([\s_-]|$)",
    re.IGNORECASE,
)
#: ARIA landmarks of page chrome (``role="banner"`` is the site's header).
_CHROME_ROLES = re.compile(r"(^|\s)(banner|navigation|contentinfo|complementary|search)(\s|$)")
#: A class that names a state or a layout of the element ("has-sidebar", "with_header",
#: "no-footer"), not the kind of box it is.
_STATE_NAME = re.compile(r"^(?:has|with|without|no|is)[_-]", re.IGNORECASE)
_HEADINGS_TAGS = ("h1", "h2", "h3", "h4", "h5", "h6")
#: Elements whose tag already says what they hold: their class never makes them chrome.
_NAMED_BY_TAG = frozenset(
    ["main", "article", "table", "p", "pre", "blockquote", "dl", *_HEADINGS_TAGS]
)
#: A box shown on demand (a tab's panel, ``tab-pane`` or ``tab__content``, an accordion's
#: answer, a collapsed section, a part streamed in hidden and moved into place by the
#: page's script: React names those ``S:`` and a hexadecimal number, ``S:1f``): hidden
#: until asked for, but the page's content, and read.
_ON_DEMAND = re.compile(
    r"tab[-_]*(?:pane|panel|content)|tabbed|accordion|collaps|expand|faq|answer|^s:[0-9a-f]+$"
)
#: The page's title inside a box.
_TITLE = etree.XPath("descendant::h1[1]")
#: A form with at least this many words of its own text (not its controls'), or a header with
#: this many words of paragraphs, holds content.
_CONTENT_WORDS = 100
#: What of a form is its controls' text or never shown, not its own text.
_FORM_CONTROLS = frozenset(["script", "style", "select", "textarea", "button", "label"])
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.IGNORECASE)


def skipped(element: lxml_html.HtmlElement, root: lxml_html.HtmlElement) -> bool:
    """Whether the readers leave ``element`` out (not shown, hidden, or named as page
    chrome by its id or class); ``root`` itself is only left out for its tag."""
    tag = element.tag
    return not isinstance(tag, str) or skipped_tag(element, tag, root)


def hidden(element: lxml_html.HtmlElement) -> bool:
    """Whether ``element`` is never shown, whatever it is named: not rendered (scripts,
    styles, form controls, …) or hidden by an attribute or its style."""
    tag = element.tag
    if not isinstance(tag, str) or (tag in _SKIP_TAGS and tag not in _CHROME_TAGS):
        return tag != "button" or not _discloses(element)
    get = element.get
    # aria-hidden hides from screen readers only: the text is on screen.
    style = get("style")
    if get("hidden") is None and not (style and _hidden_style(style)):
        return False
    return not _on_demand(get("id"), get("class"), get("role"))


def skipped_tag(element: lxml_html.HtmlElement, tag: str, root: lxml_html.HtmlElement) -> bool:
    """:func:`skipped` for an element whose ``tag`` (a string) the caller has read already
    (the walk over every element of a region asks this of each)."""
    if tag in _SKIP_TAGS:
        if tag == "form":
            return not _holds_content(element)
        if tag == "header":
            return not _holds_prose(element)
        return tag != "button" or not _discloses(element)
    if element is root:
        return False
    # Called for every element of the region: one bound method, and no strings built for
    # the (many) elements without the attributes asked about. aria-hidden is not asked:
    # it hides from screen readers only, the text is on screen.
    get = element.get
    ident, names, role = get("id"), get("class"), get("role")
    style = get("style")
    if (get("hidden") is not None or (style and _hidden_style(style))) and not _on_demand(
        ident, names, role
    ):
        return True
    if not (ident or names or role) or tag in _NAMED_BY_TAG:
        return False
    # A box named as a header that holds the page's title is the content's own header
    # (a category's name and introduction), not the site's.
    return _named_boilerplate(ident, names, role) and not _TITLE(element)


@functools.lru_cache(maxsize=4096)
def _on_demand(ident: str | None, names: str | None, role: str | None) -> bool:
    """Whether a hidden element is named as a box the page shows on demand."""
    if role == "tabpanel":
        return True
    return any(_ON_DEMAND.search(name.lower()) for name in (ident, names) if name)


def _discloses(button: lxml_html.HtmlElement) -> bool:
    """Whether ``button`` opens or closes a part of the page (an accordion's or FAQ's
    question, a tab): its label is the heading of what it shows."""
    get = button.get
    return get("aria-expanded") is not None or bool(get("aria-controls"))


def _holds_prose(header: lxml_html.HtmlElement) -> bool:
    """Whether ``header`` holds the content rather than the site's masthead: paragraphs of
    many words outside its navigation (an article's body set in a ``<header>``, a page whose
    header is never closed)."""
    return many_words(texts_inside(header, "p", not_under=("nav",)))


def _holds_content(form: lxml_html.HtmlElement) -> bool:
    """Whether ``form`` wraps content rather than being one (a whole-page form, a grid of
    products in a filter form): it has many words of its own text, its controls' aside."""
    return many_words(shown_text(form, leave_out=_FORM_CONTROLS))


def shown_text(
    element: lxml_html.HtmlElement, leave_out: frozenset[str] = _UNSHOWN
) -> Iterator[str]:
    """The text of ``element`` and its descendants but those in elements it should
    ``leave_out`` (by default scripts, styles, ``<noscript>`` and ``<template>``), lazily: a
    caller counting words stops after the first few."""
    if element.text:
        yield element.text
    for child in element:
        if isinstance(child.tag, str) and child.tag not in leave_out:
            yield from shown_text(child, leave_out)
        if child.tail:
            yield child.tail


def many_words(texts: Iterable[str], enough: int = _CONTENT_WORDS) -> bool:
    """Whether ``texts`` hold ``enough`` words or more (read only that far)."""
    words = 0
    for text in texts:
        words += len(text.split())
        if words >= enough:
            return True
    return False


@functools.lru_cache(maxsize=4096)
def _hidden_style(style: str) -> bool:
    return _HIDDEN_STYLE.search(style) is not None


@functools.lru_cache(maxsize=4096)
def _named_boilerplate(ident: str | None, names: str | None, role: str | None) -> bool:
    # A page repeats the same few ids, classes and roles on many elements (every card of a
    # grid): the pattern is searched once per distinct set, not once per element.
    if role and _CHROME_ROLES.search(role):
        return True
    joined = " ".join(
        token
        for token in " ".join(filter(None, (ident, names, role))).split()
        if not _STATE_NAME.match(token)
    )
    return _BOILERPLATE.search(joined) is not None
