"""When a page says it was published: the date its markup declares, or shows where it marks one.

Read with htmldate's ``find_date`` (quick mode, the original date, not the last update) on two
small documents made from the page, so that it reads only what the page declares or marks:

1. declared: the page's URL, its ``<meta>`` tags, JSON-LD, ``<time>`` and ``<abbr>`` elements;
2. failing that, marked: the opening words of each element the page marks as a date (a class,
   id or ``itemprop`` naming a date, a byline, a post's details, a ``<small>``), in page order.

Not read: a date only mentioned in the running text or the title, which htmldate's search of
a whole page would take (a guess on a quarter of the pages); anything inside a ``<footer>``,
``<template>`` or ``<noscript>`` (a copyright year, an amendment note); marks on more than
:data:`_MOST_MARKED` elements (a list of events marks no one date); and a marked date written
with day and month both 12 or less in figures (``09/10/2024``), which reads as two days
depending on the country, nor, then, a later marked date in its place: the first is the page's.
"""

from __future__ import annotations

import copy
import functools
import re
from collections.abc import Iterator

from lxml import html as lxml_html
from lxml.html import builder

from spyglass.extract.visibility import shown_text

#: Elements whose text may hold a marked date (htmldate's quick search reads these).
_DATE_TAGS = ("div", "h2", "h3", "h4", "li", "p", "span", "time", "ul", "small")
#: Every word of an id, class or ``itemprop`` that htmldate takes as marking a date (its
#: cues, case as it matches them).
_CUES = re.compile(
    "date|Date|datum|Datum|meta|Meta|time|publish|footer|info|post_detail|block-content|"
    "byline|subline|posted|submitted|created-post|publication|author|autor|field-content|"
    "fa-clock-o|fa-calendar|fecha|parution"
)
#: What a marked element keeps in the document htmldate reads: its marks and its title.
_KEPT = ("id", "class", "itemprop", "title")
#: Script types htmldate reads as structured data.
_DATA_SCRIPTS = frozenset(["application/ld+json", "application/settings+json"])
#: Nothing inside these is read: a footer's dates are a copyright or an update.
_NOT_UNDER = ("footer", "template", "noscript")
#: More elements marked as dates than this and the marks say nothing.
_MOST_MARKED = 150
#: Characters of an element's text read for a date (htmldate reads 52 after its spaces).
_OPENING_CHARS = 200
#: A date in figures: day and month in either order, then the year.
_FIGURES = re.compile(r"(?<!\d)(\d{1,2})[./-](\d{1,2})[./-](?:\d{4}|\d{2})(?!\d)")


def published_date(tree: lxml_html.HtmlElement, url: str) -> str | None:
    """The publication date ``tree`` (read from ``url``) declares or marks, as YYYY-MM-DD;
    None when it states none."""
    declared = _read(_declared(tree), url)
    if declared is not None:
        return declared
    marked = [element for element in _marked(tree) if _shown(element)]
    if not marked or len(marked) > _MOST_MARKED:
        return None
    openings = [_copy_of(element) for element in marked]
    found = _read(builder.HTML(builder.BODY(*openings)), None)
    if found is None:
        return None
    # The first marked date is the page's: one that reads two ways is not replaced by a
    # later one (a comment's, a related story's).
    for index, opening in enumerate(openings):
        if any(_either_way(text, found) for text in (opening.text or "", opening.get("title"))):
            earlier = builder.HTML(builder.BODY(*(copy.deepcopy(o) for o in openings[:index])))
            return found if index and _read(earlier, None) is not None else None
    return found


def _read(document: lxml_html.HtmlElement, url: str | None) -> str | None:
    from htmldate import find_date

    found: str | None = find_date(
        document, extensive_search=False, original_date=True, outputformat="%Y-%m-%d", url=url
    )
    return found


def _declared(tree: lxml_html.HtmlElement) -> lxml_html.HtmlElement:
    """A document of what ``tree`` declares: its ``<meta>`` tags, JSON-LD, ``<time>`` and
    ``<abbr>`` elements (copies)."""
    head = [copy.deepcopy(meta) for meta in tree.iter("meta")]
    head += [
        copy.deepcopy(script)
        for script in tree.iter("script")
        if (script.get("type") or "").strip().lower() in _DATA_SCRIPTS
    ]
    body = [copy.deepcopy(element) for element in tree.iter("time", "abbr") if _shown(element)]
    return builder.HTML(builder.HEAD(*head), builder.BODY(*body))


def _shown(element: lxml_html.HtmlElement) -> bool:
    """Whether ``element`` is outside every footer, template and ``noscript``."""
    return next(element.iterancestors(*_NOT_UNDER), None) is None


def _marked(tree: lxml_html.HtmlElement) -> Iterator[lxml_html.HtmlElement]:
    """The elements of :data:`_DATE_TAGS` the page marks as holding a date, in its order."""
    for element in tree.iter(*_DATE_TAGS):
        get = element.get
        if element.tag == "small" or _named_as_date(get("id"), get("class"), get("itemprop")):
            yield element


def _copy_of(element: lxml_html.HtmlElement) -> lxml_html.HtmlElement:
    """``element``'s tag, marks and title around its opening words, and nothing else."""
    kept = {name: element.get(name) for name in _KEPT if element.get(name) is not None}
    opening = builder.E(element.tag, **kept)
    opening.text = _opening(element)
    return opening


@functools.lru_cache(maxsize=4096)
def _named_as_date(ident: str | None, names: str | None, itemprop: str | None) -> bool:
    # A page repeats the same few names on many elements (every item of a list).
    return any(_CUES.search(name) for name in (ident, names, itemprop) if name)


def _opening(element: lxml_html.HtmlElement) -> str:
    """The first words ``element`` shows, as many as a date in figures is looked for in (an
    element wrapping the whole page is not read whole)."""
    pieces: list[str] = []
    length = 0
    for piece in shown_text(element):
        pieces.append(piece)
        length += len(piece.strip())
        if length > _OPENING_CHARS:
            break
    return " ".join(" ".join(pieces).split())


def _either_way(text: str | None, date: str) -> bool:
    """Whether ``date`` (YYYY-MM-DD) was read from figures in ``text`` that give another
    date with day and month swapped (``09/10/2024``: 9 October or September 10)."""
    month, day = int(date[5:7]), int(date[8:10])
    if not text or month == day:
        return False
    for match in _FIGURES.finditer(text):
        first, second = int(match.group(1)), int(match.group(2))
        if {first, second} == {month, day} and first <= 12 and second <= 12:
            return True
    return False
