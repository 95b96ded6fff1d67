"""What the chooser knows about a page and its candidates, as numbers.

Page features describe what kind of page it is, from structure every site shares rather
than from any one site's markup: declared types (``og:type``, schema.org ``@type`` in
JSON-LD or microdata), ``<article>``/``<main>`` elements, how much of the text is links,
lists, tables, code, forms and headings, and the shape of the URL's path. Candidate
features describe each reading: its length, how much of it is links, list items, headings,
short lines, and how much of it the other readings share.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, MutableMapping, Sequence
from sys import intern
from typing import NamedTuple
from urllib.parse import urlsplit

from lxml import etree
from lxml import html as lxml_html

from spyglass.extract.links import link_label_chars, without_targets
from spyglass.extract.metadata import own_url
from spyglass.extract.readings import KINDS, Candidates
from spyglass.extract.tree import PageShape, meta_contents, texts_inside, typed_scripts
from spyglass.extract.words import pieces, words

#: schema.org types grouped by the page type they announce.
_TYPE_GROUPS = {
    "article": {
        "article",
        "newsarticle",
        "blogposting",
        "report",
        "scholarlyarticle",
        "techarticle",
    },
    "product": {"product", "offer", "aggregateoffer", "productgroup", "individualproduct"},
    "forum": {
        "discussionforumposting",
        "qapage",
        "question",
        "answer",
        "comment",
        "socialmediaposting",
    },
    "listing": {"itemlist", "collectionpage", "searchresultspage", "offercatalog"},
    "service": {"service", "localbusiness", "organization", "contactpage", "aboutpage", "faqpage"},
    "recipe": {"recipe", "howto", "event", "jobposting", "course"},
}
_OG_TYPES = ("article", "product", "website")
_TYPE_KEY = re.compile(r'"@type"\s*:\s*(\[[^\]]*\]|"[^"]*")')
_WORD = re.compile(r"\w+")
_DIGITS = re.compile(r"\d")
_PATH_HINTS = {
    "path_listing": re.compile(
        r"(^|/)(category|categories|tag|tags|topics?|archive|search|page)(/|$)"
    ),
    "path_forum": re.compile(
        r"(^|/)(forums?|threads?|t|topic|community|discussions?|questions?)(/|$)"
    ),
    "path_product": re.compile(r"(^|/)(products?|p|dp|item|shop|store)(/|$)"),
    "path_docs": re.compile(r"(^|/)(docs?|documentation|reference|api|manual|guide|wiki)(/|$)"),
}

#: Feature name -> the tags it counts (one pass over the tree counts them all).
_TAG_COUNTS = {
    "articles": ("article",),
    "mains": ("main",),
    "paragraphs": ("p",),
    "links": (),
    "list_items": ("li",),
    "tables": ("table",),
    "code": ("pre", "code"),
    "forms": ("form",),
    "inputs": ("input", "textarea", "select"),
    "h1": ("h1",),
    "h2": ("h2",),
    "h3": ("h3", "h4"),
    "images": ("img",),
    "itemprops": (),
    "comments_named": (),
    "time": ("time",),
}
_BODY_TEXT = etree.XPath("string-length(normalize-space(//body))")


def page_features(tree: lxml_html.HtmlElement, url: str) -> dict[str, float]:
    """Numbers that say what kind of page ``tree`` is."""
    return described_page(tree, url)[0]


def described_page(tree: lxml_html.HtmlElement, url: str) -> tuple[dict[str, float], PageShape]:
    """:func:`page_features`, and what the same walk counted for the other readers (the
    page's size, its ``<main>`` and ``role="main"`` elements)."""
    counts, shape, itemtypes = _counts(tree)
    features = {name: math.log1p(count) for name, count in counts.items()}
    body_chars = float(_BODY_TEXT(tree) or 0.0)
    features["body_chars"] = math.log1p(body_chars)
    link_chars = _link_chars(tree)
    features["page_link_density"] = link_chars / body_chars if body_chars else 0.0
    declared = _declared_types(tree, itemtypes)
    for group, names in _TYPE_GROUPS.items():
        features[f"ld_{group}"] = float(bool(declared & names))
    og = " ".join(meta_contents(tree, "property", "og:type")).lower()
    for name in _OG_TYPES:
        features[f"og_{name}"] = float(name in og)
    path = urlsplit(own_url(tree, url)).path.lower()
    segments = [s for s in path.split("/") if s]
    features["path_depth"] = float(len(segments))
    features["path_digits"] = float(bool(_DIGITS.search(path)))
    features["path_last_words"] = float(len(_WORD.findall(segments[-1])) if segments else 0)
    features["path_root"] = float(not segments)
    for name, pattern in _PATH_HINTS.items():
        features[name] = float(bool(pattern.search(path)))
    return features, shape


def _counts(tree: lxml_html.HtmlElement) -> tuple[dict[str, float], PageShape, list[str]]:
    """How many of each kind of element the page has (see :data:`_TAG_COUNTS`), its shape,
    and the microdata types its elements declare (``itemtype``)."""
    tags: dict[str, int] = {}
    links = itemprops = comments = main_roles = 0
    itemtypes: list[str] = []
    # One walk in Python costs less than sixteen XPath walks of the whole tree (and the
    # search for itemtypes libxml2 would make of every element's attributes). An element's
    # attribute names come in one call; only those it has are then read.
    for element in tree.iter(etree.Element):
        tag = element.tag
        tags[tag] = tags.get(tag, 0) + 1
        names = element.keys()
        if not names:
            continue
        get = element.get
        if tag == "a" and "href" in names:
            links += 1
        if "itemtype" in names:
            itemtypes.append(get("itemtype"))
        if "itemprop" in names:
            itemprops += 1
        if "role" in names and tag != "main" and get("role") == "main":
            main_roles += 1
        if ("class" in names and "comment" in get("class")) or (
            "id" in names and "comment" in get("id")
        ):
            comments += 1
    counts = {
        name: float(sum(tags.get(tag, 0) for tag in names)) for name, names in _TAG_COUNTS.items()
    }
    counts["links"] = float(links)
    counts["itemprops"] = float(itemprops)
    counts["comments_named"] = float(comments)
    counts["mains"] += main_roles
    return counts, PageShape(sum(tags.values()), tags.get("main", 0), main_roles), itemtypes


def _link_chars(tree: lxml_html.HtmlElement) -> float:
    return float(sum(len(text.strip()) for text in texts_inside(tree, "a")))


def _declared_types(tree: lxml_html.HtmlElement, itemtypes: list[str]) -> set[str]:
    """schema.org types named in JSON-LD or microdata (``itemtypes``, the page's), lower-case,
    without the prefix."""
    found: set[str] = set()
    for script in typed_scripts(tree, "application/ld+json"):
        for match in _TYPE_KEY.finditer(str(script)):
            try:
                value = json.loads(match.group(1))
            except ValueError:
                continue
            for name in value if isinstance(value, list) else [value]:
                if isinstance(name, str):
                    found.add(name.rsplit("/", 1)[-1].lower())
    for itemtype in itemtypes:
        for name in itemtype.split():
            found.add(name.rstrip("/").rsplit("/", 1)[-1].lower())
    return found


def candidate_features(markdown: str) -> dict[str, float]:
    """Numbers describing one candidate reading."""
    return _described(markdown, {}, set())


class _Line(NamedTuple):
    """What a reading's row counts of one of its lines."""

    #: Characters without link targets.
    shown: int
    #: Characters of link labels, brackets included.
    linked: int
    words: int
    #: Its distinct words (link targets left out) in lower case.
    lowered: tuple[str, ...]


def _line(line: str) -> _Line:
    # Every link, and every bracket the link pattern reads as text, starts with "[".
    shown = without_targets(line) if "[" in line else line
    # Piece by piece: a page-long line's list of words would take tens of megabytes, its
    # distinct words take little.
    distinct: set[str] = set()
    count = 0
    for piece in pieces(shown):
        lowered = words(piece.lower())
        distinct.update(lowered)
        # Lower case splits ASCII text into the same words; other letters may change
        # length ("İ" becomes "i" and a combining dot), so their words are counted as shown.
        count += len(lowered) if piece.isascii() else len(words(piece))
    # One string for each word however many lines hold it: a page of many short lines
    # keeps each line's words here.
    return _Line(len(shown), link_label_chars(line), count, tuple(map(intern, distinct)))


def _described(markdown: str, counted: dict[str, _Line], vocabulary: set[str]) -> dict[str, float]:
    """:func:`candidate_features` of ``markdown``; adds its words in lower case to
    ``vocabulary``. ``counted`` keeps each line's numbers across calls: a page's readings
    share most of their lines, which are then read once (no link spans lines, so a line's
    numbers do not depend on the others)."""
    lines: list[str] = []
    words: list[int] = []
    # The newlines between lines, then each line's characters.
    chars = markdown.count("\n")
    link_chars = 0
    for line in markdown.split("\n"):
        stripped = line.strip()
        if not stripped:
            chars += len(line)
            continue
        lines.append(stripped)
        known = counted.get(line)
        if known is None:
            known = counted[line] = _line(line)
        chars += known.shown
        link_chars += known.linked
        words.append(known.words)
        vocabulary.update(known.lowered)
    count = len(lines) or 1
    return {
        "chars": math.log1p(chars),
        "lines": math.log1p(len(lines)),
        "link_density": link_chars / chars if chars else 0.0,
        "list_share": sum(line.startswith(("- ", "* ")) for line in lines) / count,
        "heading_share": sum(line.startswith("#") for line in lines) / count,
        "table_share": sum(line.startswith("|") for line in lines) / count,
        "short_share": sum(n < 5 for n in words) / count,
        "long_share": sum(n >= 25 for n in words) / count,
        "sentence_share": sum(line.endswith((".", "!", "?", ":", '."')) for line in lines) / count,
        "mean_words": math.log1p(sum(words) / count),
    }


#: Where the part of a row shared by every reading of the page begins (after the reading's
#: kind and its own numbers).
CONTEXT_START = 11


#: What a reading's row says of it, by its text: kept by the caller so that rows of the same
#: readings with one more are built without describing the others again.
Described = MutableMapping[str, tuple[dict[str, float], set[str]]]


def rows(
    page: dict[str, float], found: Candidates, described: Described | None = None
) -> list[list[float]]:
    """One feature row per candidate, in :data:`KINDS` order: its kind, its own numbers,
    every candidate's numbers, how much of its words the others share, and the page's."""
    return reading_rows(page, found.by_kind(), described)


def reading_rows(
    page: dict[str, float], texts: Mapping[str, str], described: Described | None = None
) -> list[list[float]]:
    """:func:`rows` of any readings (``texts`` by kind, in the order the rows number them);
    ``described`` keeps each reading's numbers and words by its text across calls."""
    kinds = list(texts)
    known = described if described is not None else {}
    counted: dict[str, _Line] = {}
    for kind in kinds:
        text = texts[kind]
        if text not in known:
            vocabulary: set[str] = set()
            known[text] = (_described(text, counted, vocabulary), vocabulary)
    numbers = {kind: known[texts[kind]][0] for kind in kinds}
    words = {kind: known[texts[kind]][1] for kind in kinds}
    shared: dict[str, float] = {}
    for kind in kinds:
        for other in kinds:
            if other != kind:
                mine = words[kind]
                shared[f"{kind}_in_{other}"] = len(mine & words[other]) / len(mine) if mine else 0.0
    context = [value for kind in kinds for value in numbers[kind].values()]
    context += list(shared.values()) + list(page.values())
    table = []
    for index, kind in enumerate(kinds):
        own = list(numbers[kind].values())
        table.append([float(index), *own, *context])
    return table


def feature_names(page: dict[str, float], kinds: Sequence[str] = KINDS) -> list[str]:
    """Column names matching :func:`rows` (or :func:`reading_rows` of ``kinds``), for the
    model file and reports."""
    own = list(candidate_features("").keys())
    names = ["kind", *(f"own_{n}" for n in own)]
    names += [f"{kind}_{n}" for kind in kinds for n in own]
    names += [f"{kind}_in_{other}" for kind in kinds for other in kinds if other != kind]
    names += list(page.keys())
    return names
