"""Numbers that say what type of page a page is (article, product, listing, forum, …), from
the words its markup is named with.

Every site names its boxes in the same general web vocabulary — ``product-price``,
``card``, ``pagination``, ``thread``, ``toc``, ``byline`` — in ``class``, ``id`` and
``itemprop`` attributes, its ``<title>`` and its URL. This module counts, in one walk over
the tree, how many elements are named with each group of word parts (:data:`GROUPS`; word
parts shared across sites, never any one site's markup), how often one class repeats over
boxes (the cards of a grid), price-like texts, pagination links, and the same groups in the
title and the URL's path. The page-type model of :mod:`bench.page_types` reads these with
the page's part of the chooser's row (issue #12, round eight; measured, not shipped: see
docs/benchmarks.md).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from urllib.parse import urlsplit

from lxml import etree
from lxml import html as lxml_html

#: Group name -> the word parts (lower case, a trailing ``s`` dropped) that name it.
GROUPS: dict[str, tuple[str, ...]] = {
    "product": (
        "product",
        "price",
        "cart",
        "sku",
        "basket",
        "checkout",
        "buy",
        "shop",
        "stock",
        "offer",
        "variant",
        "quantity",
        "qty",
        "wishlist",
        "add",
    ),
    "review": ("review", "rating", "star", "stars"),
    "card": ("card", "tile", "grid", "item", "teaser", "thumb", "thumbnail", "col", "cell"),
    "listing": (
        "category",
        "categorie",
        "archive",
        "listing",
        "list",
        "pagination",
        "pager",
        "paging",
        "filter",
        "facet",
        "sort",
        "result",
        "collection",
        "loop",
        "feed",
        "more",
    ),
    "forum": (
        "thread",
        "post",
        "reply",
        "replie",
        "comment",
        "forum",
        "message",
        "topic",
        "answer",
        "question",
        "vote",
        "quote",
        "signature",
        "avatar",
        "username",
        "user",
    ),
    "docs": (
        "doc",
        "api",
        "toc",
        "highlight",
        "code",
        "syntax",
        "param",
        "signature",
        "version",
        "reference",
        "method",
        "function",
        "admonition",
        "note",
        "warning",
    ),
    "article": (
        "article",
        "entry",
        "story",
        "byline",
        "author",
        "headline",
        "dateline",
        "published",
        "caption",
        "lede",
        "lead",
        "blog",
        "news",
        "share",
        "related",
    ),
    "service": (
        "service",
        "contact",
        "feature",
        "benefit",
        "testimonial",
        "hero",
        "cta",
        "pricing",
        "plan",
        "faq",
        "team",
        "client",
        "solution",
        "banner",
        "section",
    ),
    "nav": ("nav", "menu", "breadcrumb", "sidebar", "widget", "footer", "header"),
}
#: Word part -> the groups it names.
_GROUP_OF: dict[str, tuple[str, ...]] = {}
for _group, _parts in GROUPS.items():
    for _part in _parts:
        _GROUP_OF[_part] = (*_GROUP_OF.get(_part, ()), _group)
_PART = re.compile(r"[a-z]+")
#: Title and path words as well as class names: the same vocabulary, and a few words
#: that only a title or an address uses.
_TITLE_EXTRA = {
    "shop": "product",
    "buy": "product",
    "store": "product",
    "category": "listing",
    "archive": "listing",
    "tag": "listing",
    "page": "listing",
    "forum": "forum",
    "thread": "forum",
    "question": "forum",
    "doc": "docs",
    "documentation": "docs",
    "api": "docs",
    "reference": "docs",
    "guide": "docs",
    "manual": "docs",
    "tutorial": "docs",
    "blog": "article",
    "news": "article",
    "service": "service",
    "solution": "service",
    "contact": "service",
    "about": "service",
    "home": "service",
}
#: Tags whose repeats with one class are the boxes of a grid or a list.
_BOX_TAGS = frozenset({"div", "li", "article", "section", "figure", "tr"})
#: Extra tag counts (the chooser's page features already count the others).
_TAGS = ("button", "nav", "aside", "section", "figure", "blockquote", "dl", "select", "label")
_PRICES = etree.XPath(
    "count(//body//text()[contains(., '$') or contains(., '€') or contains(., '£')"
    " or contains(., '¥') or contains(., '₹')])"
)
_TITLE = etree.XPath("string(//title)")
_PRICE = re.compile(r"[$€£¥₹]\s?\d|\d\s?[$€£¥₹]")


def _groups_of(value: str) -> tuple[str, ...]:
    """The groups the word parts of one attribute value name (each group once)."""
    found: list[str] = []
    for part in _PART.findall(value.lower()):
        for name in _GROUP_OF.get(part) or _GROUP_OF.get(part[:-1] if part[-1:] == "s" else "", ()):
            if name not in found:
                found.append(name)
    return tuple(found)


def type_features(tree: lxml_html.HtmlElement, url: str) -> dict[str, float]:
    """What the names in ``tree``'s markup, its title and ``url``'s path say of its type."""
    named: Counter[str] = Counter()
    tags: Counter[str] = Counter()
    boxes: Counter[str] = Counter()
    seen: dict[str, tuple[str, ...]] = {}
    elements = pagination = 0
    for element in tree.iter(etree.Element):
        elements += 1
        tag = element.tag
        tags[tag] += 1
        attributes = element.attrib
        if not attributes:
            continue
        groups: set[str] = set()
        for key in ("class", "id", "itemprop"):
            value = attributes.get(key)
            if not value:
                continue
            # Pages repeat the same class on many elements: each value is read once.
            found = seen.get(value)
            if found is None:
                found = seen[value] = _groups_of(value)
            groups.update(found)
            if key == "class" and tag in _BOX_TAGS:
                boxes[value] += 1
        named.update(groups)
        if (tag == "a" or tag == "link") and "next" in (attributes.get("rel") or ""):
            pagination += 1
    total = max(elements, 1)
    features: dict[str, float] = {}
    for name in GROUPS:
        features[f"named_{name}"] = math.log1p(named[name])
        features[f"named_{name}_share"] = named[name] / total
    for tag in _TAGS:
        features[f"tag_{tag}"] = math.log1p(tags[tag])
    repeats = sorted(boxes.values(), reverse=True)
    features["box_repeat_max"] = math.log1p(repeats[0] if repeats else 0)
    features["box_repeat_second"] = math.log1p(repeats[1] if len(repeats) > 1 else 0)
    features["box_classes_repeated"] = math.log1p(sum(n >= 4 for n in repeats))
    features["box_repeated_share"] = sum(n for n in repeats if n >= 4) / total
    features["rel_next"] = float(pagination > 0)
    features["prices"] = math.log1p(float(_PRICES(tree) or 0.0))
    title = str(_TITLE(tree) or "").lower()
    features["title_words"] = math.log1p(len(_PART.findall(title)))
    features["title_parts"] = float(sum(title.count(s) for s in (" | ", " - ", " – ", " :: ")))
    features["title_price"] = float(bool(_PRICE.search(title)))
    parts = urlsplit(url)
    words = {"title": _PART.findall(title), "path": _PART.findall(parts.path.lower())}
    for where, found_words in words.items():
        hits: Counter[str] = Counter()
        for word in found_words:
            for stem in (word, word[:-1] if word.endswith("s") else word):
                group = _TITLE_EXTRA.get(stem)
                if group:
                    hits[group] += 1
                    break
        for name in ("product", "listing", "forum", "docs", "article", "service"):
            features[f"{where}_{name}"] = float(hits[name])
    features["query_page"] = float(bool(re.search(r"(^|&)(page|p|pg|start|offset)=", parts.query)))
    features["path_html"] = float(parts.path.endswith((".html", ".htm", ".php", ".aspx")))
    return features
