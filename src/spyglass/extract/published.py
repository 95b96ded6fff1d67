"""When a page says it was published: the date its markup declares, or shows where it marks one.

Read with htmldate's readers, in its own order, the first that finds a date winning: the
page's URL, its ``<meta>`` tags, JSON-LD, ``<time>`` and ``<abbr>`` elements, then the text
of an element the page marks as a date — a class, id or ``itemprop`` naming a date, a
byline, a post's details (htmldate's cues: ``post-date``, ``byline``, ``datePublished``),
or a ``<small>`` — outside the page's ``<footer>`` (a copyright year, an amendment note).
Not read: a date only mentioned in the running text, which htmldate's pattern search would
take (a guess on a quarter of the pages), and a date written with day and month both 12 or
less in figures (``09/10/2024``), which reads as two days depending on the country — nor,
then, a later marked date in its place: the first is the page's.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from itertools import islice

from lxml import html as lxml_html

from spyglass.extract.visibility import shown_text

#: Elements whose text may hold a marked date (htmldate's quick search reads these).
_DATE_TAGS = ("div", "h2", "h3", "h4", "li", "p", "span", "time", "ul", "small")
#: Every word of an id, class or ``itemprop`` that htmldate takes as marking a date (its
#: cues, case as it matches them): elements without one are not asked its own test.
_CUES = re.compile(
    "date|Date|datum|Datum|meta|Meta|time|publish|footer|info|post_detail|block-content|"
    "byline|subline|posted|submitted|created-post|publication|author|autor|field-content|"
    "fa-clock-o|fa-calendar|fecha|parution"
)
#: Marked dates are not read inside these: a footer's dates are a copyright or an update.
_NOT_UNDER = frozenset(["footer", "template", "noscript"])
#: More elements marked as dates than this and the marks say nothing (htmldate's bound).
_MOST_MARKED = 150
#: Characters of an element's text read for a date (htmldate reads 52 after its spaces).
_OPENING_CHARS = 200
#: A date in figures: day and month in either order, then the year.
_FIGURES = re.compile(r"(?<!\d)(\d{1,2})[./-](\d{1,2})[./-](?:\d{4}|\d{2})(?!\d)")


def published_date(tree: lxml_html.HtmlElement, url: str) -> str | None:
    """The publication date ``tree`` (read from ``url``) declares or marks, as YYYY-MM-DD;
    None when it states none."""
    try:
        from htmldate.core import (
            examine_abbr_elements,
            examine_header,
            examine_text,
            examine_time_elements,
            is_date_candidate,
        )
        from htmldate.extractors import extract_url_date, json_search
        from htmldate.utils import Extractor
        from htmldate.validators import get_max_date, get_min_date
    except ImportError:  # another layout of htmldate: its quick search, guesses included
        from htmldate import find_date

        found: str | None = find_date(tree, url=url, extensive_search=False, original_date=True)
        return found
    options = Extractor(False, get_max_date(None), get_min_date(None), True, "%Y-%m-%d")
    date = (
        extract_url_date(url, options)
        or examine_header(tree, options)
        or json_search(tree, options)
        or examine_time_elements(tree, options)
        or examine_abbr_elements(tree, options)
    )
    if date:
        return str(date)
    marked = [
        element
        for element in islice(_marked(tree, is_date_candidate), _MOST_MARKED + 1)
        if next(element.iterancestors(*_NOT_UNDER), None) is None
    ]
    if len(marked) > _MOST_MARKED:
        return None
    for element in marked:
        for text in (_opening(element), element.get("title") or ""):
            read = examine_text(text, options)
            if read:
                # The first marked date is the page's: one that reads two ways is not
                # replaced by a later one (a comment's, a related story's).
                return None if _either_way(text, str(read)) else str(read)
    return None


def _marked(
    tree: lxml_html.HtmlElement, marks_date: Callable[[lxml_html.HtmlElement], bool]
) -> Iterator[lxml_html.HtmlElement]:
    """The elements of :data:`_DATE_TAGS` the page marks as holding a date (``marks_date``:
    htmldate's test of an element's id, class and ``itemprop``), in the page's order."""
    for element in tree.iter(*_DATE_TAGS):
        if element.tag == "small":
            yield element
            continue
        get = element.get
        if _named_as_date(get("id"), get("class"), get("itemprop")) and marks_date(element):
            yield element


@functools.lru_cache(maxsize=4096)
def _named_as_date(ident: str | None, names: str | None, itemprop: str | None) -> bool:
    # A page repeats the same few names on many elements (every item of a list).
    return any(_CUES.search(name) for name in (ident, names, itemprop) if name)


def _opening(element: lxml_html.HtmlElement) -> str:
    """The first words ``element`` shows, as many as a date is read from: htmldate reads the
    first 52 characters of a text (an element wrapping the whole page is not read whole for
    each element it holds)."""
    pieces: list[str] = []
    length = 0
    for piece in shown_text(element):
        pieces.append(piece)
        length += len(piece.strip())
        if length > _OPENING_CHARS:
            break
    return " ".join(" ".join(pieces).split())


def _either_way(text: str, date: str) -> bool:
    """Whether ``date`` (YYYY-MM-DD) was read from figures in ``text`` that give another
    date with day and month swapped (``09/10/2024``: 9 October or September 10)."""
    month, day = int(date[5:7]), int(date[8:10])
    if month == day:
        return False
    for match in _FIGURES.finditer(text):
        first, second = int(match.group(1)), int(match.group(2))
        if {first, second} == {month, day} and first <= 12 and second <= 12:
            return True
    return False
