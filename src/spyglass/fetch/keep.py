"""How sure the block model must be before a block of the chosen reading is kept, by what
the page declares itself to be.

A page that declares itself an article (schema.org ``Article``/``NewsArticle``/
``BlogPosting``/… in JSON-LD or microdata, or ``og:type`` article) is cut more strictly:
the boxes around a single article are what the reader does not want. A page declaring
another type (product, forum, listing, service, recipe-like) keeps more, since its link
lists and short lines are often the content. The thresholds of each group are chosen by
``bench/keep_rules.py`` on held-out outputs of both training corpora and shipped in
``models/keep.json``; the same :func:`declared_type` groups pages there and here.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from types import MappingProxyType

from spyglass.fetch.learned import model_text

KEEP_FILE = "keep.json"
#: The groups :func:`declared_type` puts a page in.
GROUPS = ("article", "other", "none")
#: Page features (``spyglass.fetch.features.page_features``) that declare a non-article type.
_OTHER_TYPES = ("ld_product", "ld_forum", "ld_listing", "ld_service", "ld_recipe", "og_product")


def declared_type(page: Mapping[str, float]) -> str:
    """``"article"``, ``"other"`` or ``"none"``: what the page's declared types say it is
    (``page`` as :func:`spyglass.fetch.features.page_features` describes it)."""
    if page.get("ld_article") or page.get("og_article"):
        return "article"
    if any(page.get(name) for name in _OTHER_TYPES):
        return "other"
    return "none"


def thresholds() -> dict[str, float]:
    """The shipped threshold of every group."""
    return dict(_shipped())


@functools.cache
def _shipped() -> Mapping[str, float]:
    # Read once per process; two fetch threads reading it at once would only read it twice.
    loaded = json.loads(model_text(KEEP_FILE))["thresholds"]
    return MappingProxyType({group: float(loaded[group]) for group in GROUPS})


def keep_threshold(page: Mapping[str, float]) -> float:
    """The chance of being content below which a block of this page is left out."""
    return _shipped()[declared_type(page)]
