"""A page's title, author, publication date and site name, as a short header to cite; and
its own description, for a page whose content cannot be read.

Read with trafilatura's metadata readers (OpenGraph and ``<meta>`` tags, then JSON-LD,
which wins where both speak) and htmldate's readers of declared publication dates (URL,
``<meta>``, JSON-LD, ``<time>``, ``<abbr>``; no guessing from the text). A field is left
out when the page does not state it, so the header is never padded with guesses.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from lxml import html as lxml_html

logger = logging.getLogger(__name__)

#: Longest value kept for a field; longer ones are cut (author lists, marketing titles).
_MAX_FIELD = 160
#: Longest description kept: a forum's is the opening post's first few sentences.
_MAX_DESCRIPTION = 600


@dataclass(frozen=True)
class Metadata:
    title: str | None = None
    author: str | None = None
    published: str | None = None
    site: str | None = None
    #: What the page says it is about (``description`` meta tags, OpenGraph, JSON-LD).
    description: str | None = None

    def header(self, *, described: bool = False) -> str:
        """``Title: ...`` lines for the fields present, or ``""`` when none is; with
        ``described``, the page's description too (where it is all there is to read)."""
        fields = (
            ("Title", self.title),
            ("Author", self.author),
            ("Published", self.published),
            ("Site", self.site),
            ("Description", self.description if described else None),
        )
        return "\n".join(f"{name}: {value}" for name, value in fields if value)


def page_metadata(tree: lxml_html.HtmlElement, url: str) -> Metadata:
    """The metadata ``tree`` declares; fields it does not declare are None."""
    from trafilatura.metadata import examine_meta, extract_meta_json

    try:
        found = extract_meta_json(tree, examine_meta(tree))
    except (ValueError, TypeError, AttributeError) as exc:  # malformed markup or JSON-LD
        logger.info("page metadata could not be read: %s", type(exc).__name__)
        return Metadata()
    try:
        published = _declared_date(tree, url)
    except (ValueError, TypeError, AttributeError, OverflowError):
        published = None
    return Metadata(
        title=_clean(found.title),
        author=_clean(found.author),
        published=_clean(published),
        site=_clean(found.sitename),
        description=_clean(found.description, _MAX_DESCRIPTION),
    )


def _declared_date(tree: lxml_html.HtmlElement, url: str) -> str | None:
    """The publication date the page declares: in its URL, its ``<meta>`` tags, JSON-LD,
    ``<time>`` or ``<abbr>`` elements, as YYYY-MM-DD; None when it declares none."""
    try:
        # htmldate's own readers of declared dates, without the pattern search through the
        # page's text that its find_date runs next (a guess, and most of its time).
        from htmldate.core import examine_abbr_elements, examine_header, examine_time_elements
        from htmldate.extractors import extract_url_date, json_search
        from htmldate.utils import Extractor
        from htmldate.validators import get_max_date, get_min_date
    except ImportError:  # another layout of htmldate: its quick search, guesses included
        from htmldate import find_date

        found: str | None = find_date(tree, url=url, extensive_search=False, original_date=True)
        return found
    options = Extractor(False, get_max_date(None), get_min_date(None), True, "%Y-%m-%d")
    # In htmldate's own order; the first reader that finds a date wins.
    date = (
        extract_url_date(url, options)
        or examine_header(tree, options)
        or json_search(tree, options)
        or examine_time_elements(tree, options)
        or examine_abbr_elements(tree, options)
    )
    return str(date) if date else None


def _clean(value: object, longest: int = _MAX_FIELD) -> str | None:
    if not isinstance(value, str):
        return None
    text = " ".join(value.split())
    if not text:
        return None
    return text if len(text) <= longest else text[: longest - 1].rstrip() + "…"
