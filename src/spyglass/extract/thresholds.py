"""How sure the block model must be before a block of the chosen reading is kept, by
whether the page declares itself an article and by which reading was chosen.

A page that declares itself an article (schema.org ``Article``/``NewsArticle``/
``BlogPosting``/… in JSON-LD or microdata, or ``og:type`` article) is cut more strictly:
the boxes around a single article are what the reader does not want. Any other page keeps
more, since its link lists and short lines are often the content. Within each, every
reading has a threshold of its own: what the block model doubts is not the same in
trafilatura's article reading, in the main region and in the block enclosing the article.
The thresholds are chosen by ``bench/keep_rules.py`` on held-out outputs of both training
corpora and shipped in ``models/keep.json``; the same :func:`group` puts readings in them
there and here.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from types import MappingProxyType

from spyglass.extract.learned import model_text
from spyglass.extract.readings import KINDS

KEEP_FILE = "keep.json"
#: A page that declares itself an article, and every other page.
DECLARED = ("article", "not-article")
#: The groups with a threshold of their own: what the page declares and the reading's kind.
GROUPS = tuple(f"{declared}/{kind}" for declared in DECLARED for kind in KINDS)
#: Page features (``spyglass.extract.features.page_features``) that declare a non-article type.
_OTHER_TYPES = ("ld_product", "ld_forum", "ld_listing", "ld_service", "ld_recipe", "og_product")


def declared_type(page: Mapping[str, float]) -> str:
    """``"article"``, ``"other"`` or ``"none"``: what the page's declared types say it is
    (``page`` as :func:`spyglass.extract.features.page_features` describes it)."""
    if page.get("ld_article") or page.get("og_article"):
        return "article"
    if any(page.get(name) for name in _OTHER_TYPES):
        return "other"
    return "none"


def group(page: Mapping[str, float], reading: str) -> str:
    """The group of ``reading`` (one of :data:`~spyglass.extract.readings.KINDS`) of
    ``page``: ``"article/<reading>"`` on a page declaring an article, else
    ``"not-article/<reading>"``."""
    declared = "article" if declared_type(page) == "article" else "not-article"
    return f"{declared}/{reading}"


def thresholds() -> dict[str, float]:
    """The shipped threshold of every group."""
    return dict(_shipped())


@functools.cache
def _shipped() -> Mapping[str, float]:
    # Read once per process; two fetch threads reading it at once would only read it twice.
    loaded = json.loads(model_text(KEEP_FILE))["thresholds"]
    return MappingProxyType({name: float(loaded[name]) for name in GROUPS})


def keep_threshold(page: Mapping[str, float], reading: str) -> float:
    """The chance of being content below which a block of ``reading`` of this page is left
    out."""
    return _shipped()[group(page, reading)]


def page_thresholds(page: Mapping[str, float]) -> dict[str, float]:
    """:func:`keep_threshold` of each reading of this page, by kind."""
    return {kind: keep_threshold(page, kind) for kind in KINDS}
