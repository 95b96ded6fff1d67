"""Error analysis of web.fetch's readings: what the reference has that the readings miss,
and what they keep that it does not, by where it sits in the page's markup.

    PYTHONPATH=src .venv/bin/python bench/reading_errors.py [--types product,collection,...]
        [--every 1] [--worst 5] [--jobs 2] [--readings article,region,block] [--json OUT]

For every WCXB dev page of the given types (every ``--every``-th), the readings of
:func:`spyglass.extract.html.readings` (fallback included, as training reads them) are
scored with the benchmark's word F1, and compared with the reference line by line:

- a reference line is *missed* by a reading when fewer than half of its word trigrams (a
  line under three words: its words as a phrase) occur in the reading; missed by *every*
  reading is what no chooser or block filter can bring back;
- a line of the best reading (highest F1) is *extra* when fewer than half of its trigrams
  occur in the reference.

Each such line is found again in the page: among the page's lowest text blocks (every
element's own text, hidden, script, template and ``<noscript>`` text included) and the
texts of its attributes (``alt``, ``title``, ``content``, ``aria-label``, ``value``,
``placeholder``), the one sharing most of its trigrams. Its words are then counted under
three descriptions of that block: the *box* around it (JSON-LD, another script,
``<noscript>``, ``<template>``, an attribute, ``hidden``/``aria-hidden``/``display:none``,
``<head>``, ``<nav>``/``<header>``/``<footer>``/``<aside>``/``<form>``, a form control,
a class or id the region reader treats as chrome, outside ``<main>``, or plainly visible),
its *structure* (heading, data table, layout table, definition list, list item, code,
quotation, caption, paragraph, a block that is all link text, other text), and the nearest
*named box* within six levels (comments/reviews, price/specification, related, card/grid,
…). Counts are summed over all pages of a type; ``--worst`` pages of each type are listed
with their lines.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter, defaultdict
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.extraction_data import load, load_truth, page_ids, plain  # noqa: E402

TYPES = ("product", "collection", "listing", "service", "forum")
_WORD = re.compile(r"\w+")
_ATTRIBUTES = ("alt", "title", "content", "aria-label", "value", "placeholder")
_CHROME = ("nav", "header", "footer", "aside", "form")
_CONTROLS = frozenset(["button", "select", "option", "label", "input", "textarea"])
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.I)
_NAMED_CHROME = re.compile(
    r"(^|[\s_-])(nav|navbar|navigation|menu|breadcrumbs?|footer|header|sidebar|cookies?|"
    r"consent|banner|newsletter|social|share|sharing|popup|modal|skip)([\s_-]|$)",
    re.I,
)
#: Named boxes, most specific first; a name matches as a part of a class or id.
_NAMED = [
    ("comment/review", re.compile(r"comment|review|repl(y|ies)|discussion|thread|post|answer")),
    ("price/spec", re.compile(r"price|spec|attribute|feature|detail|propert|param|variant")),
    ("related", re.compile(r"related|recommend|popular|trending|also|suggest|promo")),
    ("card/grid", re.compile(r"card|tile|grid|item|product|listing|result|teaser")),
    ("tabs/accordion", re.compile(r"tab|accordion|collaps|toggle|panel|faq")),
]
_STRUCTURE_TAGS = {
    **{f"h{n}": "heading" for n in range(1, 7)},
    "dt": "definition list",
    "dd": "definition list",
    "li": "list item",
    "pre": "code",
    "code": "code",
    "blockquote": "quotation",
    "figcaption": "caption",
    "caption": "caption",
    "p": "paragraph",
}
_BLOCKS = frozenset(
    {
        *("p", "div", "li", "ul", "ol", "dl", "dd", "dt", "section", "article", "main"),
        *("table", "tr", "td", "th", "blockquote", "pre", "figure", "figcaption", "address"),
        *("details", "summary", "h1", "h2", "h3", "h4", "h5", "h6", "header", "footer"),
        *("nav", "aside", "form", "body", "span", "label", "button", "option", "select"),
    }
)


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower().replace("_", " "))


def trigrams(tokens: list[str]) -> set[tuple[str, ...]]:
    return {tuple(tokens[i : i + 3]) for i in range(len(tokens) - 2)}


def covered(tokens: list[str], grams: set[tuple[str, ...]], phrase: str) -> float:
    """Share of ``tokens``' trigrams in ``grams`` (short lines: 1.0 when found as a phrase)."""
    if len(tokens) < 3:
        return 1.0 if f" {' '.join(tokens)} " in phrase else 0.0
    own = trigrams(tokens)
    return sum(gram in grams for gram in own) / len(own)


class Page:
    """The page's lowest text blocks and attribute texts, each with its descriptions."""

    def __init__(self, tree: Any) -> None:
        self.blocks: list[tuple[list[str], tuple[str, str, str]]] = []
        self.main = tree.xpath("//main|//*[@role='main']")
        self._walk(tree, (), [])
        self.index: dict[tuple[str, ...], list[int]] = defaultdict(list)
        for number, (tokens, _) in enumerate(self.blocks):
            for gram in trigrams(tokens):
                self.index[gram].append(number)
        self.phrases = [f" {' '.join(tokens)} " for tokens, _ in self.blocks]

    def _walk(self, element: Any, ancestors: tuple[Any, ...], run: list[str]) -> None:
        tag = element.tag if isinstance(element.tag, str) else ""
        chain = (*ancestors, element) if tag else ancestors
        if tag:
            for name in _ATTRIBUTES:
                value = element.get(name)
                if value and len(words(value)) >= 1 and not value.startswith(("http", "/")):
                    self._add(words(value), chain, attribute=True)
        if tag == "script":
            kind = (element.get("type") or "").lower()
            self._add(words(element.text or ""), chain, script=kind)
            return
        if tag in ("style",):
            return
        own = [element.text or ""] if tag else []
        for child in element:
            if isinstance(child.tag, str) and child.tag in _BLOCKS:
                self._add(words(" ".join(own)), chain)
                own = []
                self._walk(child, chain, run)
            elif isinstance(child.tag, str):
                # Inline: its text belongs to this block.
                own.append(child.text_content() if child.tag != "script" else "")
                if child.tag not in ("script", "style"):
                    self._inline_attributes(child, chain)
            own.append(child.tail or "")
        self._add(words(" ".join(own)), chain)

    def _inline_attributes(self, element: Any, chain: tuple[Any, ...]) -> None:
        for inner in element.iter():
            if not isinstance(inner.tag, str):
                continue
            for name in _ATTRIBUTES:
                value = inner.get(name)
                if value and not value.startswith(("http", "/")):
                    self._add(words(value), (*chain, inner), attribute=True)

    def _add(
        self,
        tokens: list[str],
        chain: tuple[Any, ...],
        attribute: bool = False,
        script: str | None = None,
    ) -> None:
        if not tokens:
            return
        self.blocks.append((tokens, describe(chain, attribute, script, self.main)))

    def locate(self, tokens: list[str]) -> tuple[str, str, str]:
        """The descriptions of the block holding most of ``tokens``; "not in page" when
        none holds a third of them."""
        if len(tokens) >= 3:
            hits: Counter[int] = Counter()
            own = trigrams(tokens)
            for gram in own:
                for number in self.index.get(gram, ()):
                    hits[number] += 1
            if hits:
                number, count = max(hits.items(), key=lambda item: (item[1], -item[0]))
                if count / len(own) >= 1 / 3:
                    return self.blocks[number][1]
            return ("not in page", "-", "-")
        phrase = f" {' '.join(tokens)} "
        for number, text in enumerate(self.phrases):
            if phrase in text:
                return self.blocks[number][1]
        return ("not in page", "-", "-")


def describe(
    chain: tuple[Any, ...], attribute: bool, script: str | None, main: list[Any]
) -> tuple[str, str, str]:
    """(box, structure, named box) of the innermost element of ``chain``."""
    tags = [element.tag for element in chain]
    if script is not None:
        box = "json-ld" if "ld+json" in script else "script"
    elif attribute:
        box = "attribute"
    elif "template" in tags:
        box = "template"
    elif "noscript" in tags:
        box = "noscript"
    elif any(
        e.get("hidden") is not None or _HIDDEN_STYLE.search(e.get("style") or "") for e in chain
    ):
        box = "hidden/display:none"
    elif any(e.get("aria-hidden") == "true" for e in chain):
        box = "aria-hidden"
    elif "head" in tags:
        box = "head"
    elif any(tag in _CHROME for tag in tags):
        box = "<" + next(tag for tag in reversed(tags) if tag in _CHROME) + ">"
    elif any(tag in _CONTROLS for tag in tags):
        box = "form control"
    elif any(
        _NAMED_CHROME.search(" ".join(filter(None, (e.get("id"), e.get("class"), e.get("role")))))
        for e in chain
        # The page's own classes (``<body class="has-popup">``) name no box.
        if e.tag not in ("html", "body")
    ):
        box = "named as chrome"
    elif main and not any(e is main[0] for e in chain):
        box = "outside <main>"
    else:
        box = "visible"
    structure = "other text"
    for element in reversed(chain):
        tag = element.tag
        if tag in ("td", "th"):
            table = next((e for e in reversed(chain) if e.tag == "table"), None)
            layout = table is not None and any(
                inner.tag in ("table", "div", "p", "ul", "ol", "dl")
                for cell in table.iter("td", "th")
                for inner in cell.iterdescendants()
            )
            structure = "layout table" if layout else "data table"
            break
        if tag in _STRUCTURE_TAGS:
            structure = _STRUCTURE_TAGS[tag]
            break
    innermost = chain[-1] if chain else None
    if structure in ("other text", "paragraph", "list item") and innermost is not None:
        text = innermost.text_content().strip()
        linked = sum(len(a.text_content()) for a in innermost.iter("a"))
        if text and linked >= 0.8 * len(text):
            structure = "link text"
    named = "-"
    for element in reversed(chain[-7:]):
        name = " ".join(filter(None, (element.get("id"), element.get("class")))).lower()
        if not name:
            continue
        found = next((label for label, pattern in _NAMED if pattern.search(name)), None)
        if found:
            named = found
            break
    return (box, structure, named)


def analyse(item: tuple[str, tuple[str, ...]]) -> dict[str, Any] | None:
    from spyglass.extract.html import readings, with_fallback
    from spyglass.extract.tree import parse

    page_id, kinds = item
    page = load("wcxb", page_id)
    tree = parse(page.html)
    if tree is None:
        return None
    read = readings(tree, page.url)
    texts = with_fallback(read.found, tree)
    scores = {kind: page.score(texts[kind]) for kind in kinds}
    best = max(kinds, key=lambda kind: scores[kind]["f1"])
    plains = {kind: plain(texts[kind]) for kind in kinds}
    tokens = {kind: words(plains[kind]) for kind in kinds}
    grams = {kind: trigrams(tokens[kind]) for kind in kinds}
    phrases = {kind: f" {' '.join(tokens[kind])} " for kind in kinds}
    located = Page(parse(page.html))
    missed_all: Counter[tuple[str, str, str]] = Counter()
    missed_best: Counter[tuple[str, str, str]] = Counter()
    extra: Counter[tuple[str, str, str]] = Counter()
    examples: dict[str, list[tuple[str, tuple[str, str, str]]]] = {
        "missed": [],
        "extra": [],
    }
    for line in page.reference.split("\n"):
        own = words(line)
        if not own:
            continue
        shares = {kind: covered(own, grams[kind], phrases[kind]) for kind in kinds}
        if shares[best] >= 0.5:
            continue
        where = located.locate(own)
        missed_best[where] += len(own)
        if max(shares.values()) < 0.5:
            missed_all[where] += len(own)
            examples["missed"].append((line.strip()[:100], where))
    reference = words(page.reference)
    reference_grams = trigrams(reference)
    reference_phrase = f" {' '.join(reference)} "
    for line in plains[best].split("\n"):
        own = words(line)
        if not own or covered(own, reference_grams, reference_phrase) >= 0.5:
            continue
        where = located.locate(own)
        extra[where] += len(own)
        examples["extra"].append((line.strip()[:100], where))
    return {
        "id": page_id,
        "type": page.type,
        "url": page.url,
        "scores": {kind: round(scores[kind]["f1"], 3) for kind in kinds},
        "pr": {kind: (scores[kind]["precision"], scores[kind]["recall"]) for kind in kinds},
        "best": best,
        "reference_words": len(reference),
        "missed_all": missed_all,
        "missed_best": missed_best,
        "extra": extra,
        "examples": examples,
    }


def table(title: str, counts: Counter[str], total: float) -> list[str]:
    lines = [f"  {title}:"]
    for label, value in counts.most_common(12):
        lines.append(f"    {label:<22} {value:>8} words  {value / max(total, 1):6.1%}")
    return lines


def report(results: Iterable[dict[str, Any]], worst: int) -> list[str]:
    by_type: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for result in results:
        by_type[result["type"]].append(result)
    out: list[str] = []
    for page_type, pages in sorted(by_type.items()):
        reference = sum(p["reference_words"] for p in pages)
        best = sum(max(p["scores"].values()) for p in pages) / len(pages)
        out.append(
            f"\n## {page_type}: {len(pages)} pages, {reference} reference words, "
            f"best reading F1 {best:.3f}"
        )
        for what, key in (
            ("missed by every reading", "missed_all"),
            ("missed by the best reading", "missed_best"),
            ("extra in the best reading", "extra"),
        ):
            total: Counter[tuple[str, str, str]] = Counter()
            for page in pages:
                total.update(page[key])
            words_total = sum(total.values())
            out.append(f" {what}: {words_total} words ({words_total / reference:.1%} of ref)")
            for axis, position in (("box", 0), ("structure", 1), ("named box", 2)):
                axis_counts: Counter[str] = Counter()
                for where, value in total.items():
                    axis_counts[where[position]] += value
                out.extend(table(axis, axis_counts, words_total))
            pairs: Counter[str] = Counter()
            for where, value in total.items():
                pairs[f"{where[0]} / {where[1]}"] += value
            out.extend(table("box / structure", pairs, words_total))
        pages.sort(key=lambda p: max(p["scores"].values()))
        out.append(f" worst {worst} pages:")
        for page in pages[:worst]:
            out.append(f"  {page['id']} {page['url'][:80]} {page['scores']} best={page['best']}")
            for what in ("missed", "extra"):
                for line, where in page["examples"][what][:6]:
                    out.append(f"    {what:>6} [{' / '.join(where)}] {line}")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--types", default=",".join(TYPES))
    parser.add_argument("--every", type=int, default=1, help="every k-th page of the types")
    parser.add_argument("--worst", type=int, default=5, help="pages listed per type")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--readings", default="article,region,block")
    parser.add_argument("--json", type=Path, help="also write the per-page scores here")
    args = parser.parse_args()
    types = set(args.types.split(","))
    kinds = tuple(args.readings.split(","))
    # The type the benchmark scores by: the reference's, not metadata.json's.
    ids = [i for i in page_ids("wcxb") if load_truth("wcxb", i).type in types]
    ids = ids[:: args.every]
    with ProcessPoolExecutor(args.jobs) as pool:
        results = [r for r in pool.map(analyse, [(i, kinds) for i in ids], chunksize=4) if r]
    print("\n".join(report(results, args.worst)))
    if args.json:
        args.json.write_text(
            json.dumps([{"id": r["id"], "type": r["type"], "scores": r["scores"]} for r in results])
        )


if __name__ == "__main__":
    main()
