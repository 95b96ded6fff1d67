"""How far the block filter is from what its labels allow, and more block features measured
held out (issue #12, round twenty-eight).

    .venv/bin/python bench/block_headroom.py                  # the ceilings, by page type
    .venv/bin/python bench/block_headroom.py --extra window,section,shape,voice \
        --seeds 20261130,7                                    # ~4 min a seed
    .venv/bin/python bench/block_headroom.py --extra stop     # round thirty
    .venv/bin/python bench/block_headroom.py --bag 4          # ~8 min a seed

The first table reads every WCXB page's three readings with each block kept or left out as
its label says (:class:`bench.block_training.Truth`; blocks the references do not judge
stay): what a perfect block model would make of them, against the best reading unfiltered.
The second trains the block model per fold on the other folds' sites with and without
families of extra columns appended to every block's row (each computed from the reading's
text alone: :data:`FAMILIES`), the shipped chooser retrained per fold choosing and the
shipped keep rule choosing its thresholds per fold — the shipped row of
``bench/page_types.py`` with only the block model changed. Each seed gets both rows:
LightGBM draws the columns of each tree by their number, so more columns reshuffle the
model as much as another seed does.

``--bag K`` compares the shipped block model with the mean chance of K block models per
fold, each trained on another sample of the labelled blocks (:func:`bench.block_training.sampled`'s
salt) with another seed: what bagging takes off the block model's variance.

Reads the caches ``bench/train_extraction.py --rebuild`` writes.
"""

from __future__ import annotations

import argparse
import math
import re
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import block_training, extraction_data  # noqa: E402
from bench import chooser_variants as variants  # noqa: E402
from bench import train_extraction as training  # noqa: E402
from spyglass.extract.blocks import (  # noqa: E402
    Block,
    Scored,
    block_key,
    link_density,
    split_blocks,
)

#: Blocks each side of a block that :func:`window` averages over.
WINDOW = 3
_FIRST_PERSON = re.compile(r"\b(?:i|i'm|i've|my|me)\b", re.IGNORECASE)
_CURRENCY = re.compile(r"[$€£¥₹]|\b(?:usd|eur|gbp)\b", re.IGNORECASE)

#: One reading's non-empty blocks -> one row of extra columns per block.
Family = Callable[[list[Block]], list[list[float]]]


def words(block: Block) -> int:
    """The block's words as the block model counts them."""
    key = block_key(block.text)
    return key.count(b" ") + 1 if key else 0


def window(blocks: list[Block]) -> list[list[float]]:
    """The mean link density and log words of the :data:`WINDOW` blocks each side."""
    density = [link_density(b.text) for b in blocks]
    size = [math.log1p(words(b)) for b in blocks]
    rows = []
    for index in range(len(blocks)):
        around = [
            i
            for i in range(max(0, index - WINDOW), min(len(blocks), index + WINDOW + 1))
            if i != index
        ] or [index]
        rows.append(
            [
                sum(density[i] for i in around) / len(around),
                sum(size[i] for i in around) / len(around),
            ]
        )
    return rows


def section(blocks: list[Block]) -> list[list[float]]:
    """The block's section (from one heading to the next): log words, word-weighted link
    density, log blocks, and its share of the reading's words."""
    sections, current = [], 0
    for block in blocks:
        current += block.kind == "heading"
        sections.append(current)
    totals: dict[int, list[float]] = {}
    for block, at in zip(blocks, sections, strict=True):
        count = words(block)
        total = totals.setdefault(at, [0.0, 0.0, 0.0])
        total[0] += count
        total[1] += link_density(block.text) * count
        total[2] += 1
    everything = sum(total[0] for total in totals.values()) or 1.0
    return [
        [
            math.log1p(totals[at][0]),
            totals[at][1] / max(totals[at][0], 1.0),
            math.log1p(totals[at][2]),
            totals[at][0] / everything,
        ]
        for at in sections
    ]


def shape(blocks: list[Block]) -> list[list[float]]:
    """How many blocks of the reading share the block's shape (its kind, its words to a
    power of two, whether it links), as a log count and a share."""
    shapes = [(b.kind, min(int(math.log2(words(b) + 1)), 8), "](" in b.text) for b in blocks]
    counted = Counter(shapes)
    return [[math.log1p(counted[s]), counted[s] / len(blocks)] for s in shapes]


def voice(blocks: list[Block]) -> list[list[float]]:
    """First-person words and currency signs per word, and whether it exclaims (a
    customer's review, a price)."""
    rows = []
    for block in blocks:
        count = max(words(block), 1)
        rows.append(
            [
                len(_FIRST_PERSON.findall(block.text)) / count,
                len(_CURRENCY.findall(block.text)) / count,
                float("!" in block.text),
            ]
        )
    return rows


_LETTERS = re.compile(r"[^\W\d_]+")


@cache
def stoplists() -> tuple[dict[str, frozenset[str]], dict[str, tuple[str, ...]]]:
    """jusText's stop-word lists (a dependency of trafilatura's) by language, and the
    languages each word is a stop word of."""
    import justext

    lists = {name: frozenset(justext.get_stoplist(name)) for name in justext.get_stoplists()}
    languages: dict[str, list[str]] = {}
    for name, listed in sorted(lists.items()):
        for word in listed:
            languages.setdefault(word, []).append(name)
    return lists, {word: tuple(names) for word, names in languages.items()}


def stop(blocks: list[Block]) -> list[list[float]]:
    """Stop-word density as jusText weighs paragraphs: the share of the block's words that
    are stop words of the reading's language (the list holding most of its words), their
    log count, and the reading's own density."""
    lists, languages = stoplists()
    words_of = [_LETTERS.findall(block.text.lower()) for block in blocks]
    counted = Counter(name for found in words_of for w in found for name in languages.get(w, ()))
    total = sum(len(found) for found in words_of) or 1
    language, hits = counted.most_common(1)[0] if counted else ("", 0)
    listed = lists.get(language, frozenset())
    rows = []
    for found in words_of:
        count = sum(w in listed for w in found)
        rows.append([count / len(found) if found else 0.0, math.log1p(count), hits / total])
    return rows


FAMILIES: dict[str, tuple[Family, list[str]]] = {
    "window": (window, ["window_link_density", "window_words"]),
    "section": (
        section,
        ["section_words", "section_link_density", "section_blocks", "section_share"],
    ),
    "shape": (shape, ["shape_count", "shape_share"]),
    "voice": (voice, ["first_person", "currency", "exclaims"]),
    "stop": (stop, ["stopword_density", "stopwords", "reading_stopword_density"]),
}


def extra_columns(markdown: str, families: list[str]) -> list[list[float]]:
    """The ``families``' columns for every non-empty block of ``markdown``, in order."""
    blocks = [b for b in split_blocks(markdown) if b.text.strip()]
    if not blocks:
        return []
    parts = [FAMILIES[name][0](blocks) for name in families]
    return [[value for part in row for value in part] for row in zip(*parts, strict=True)]


def by_labels(markdown: str, truth: block_training.Truth) -> str:
    """``markdown`` with the blocks its labels call boilerplate left out (what a perfect
    block model would keep; blocks the references do not judge stay)."""
    blocks = split_blocks(markdown)
    return "\n".join(b.text for b in blocks if truth.label(b.text) != 0.0)


def ceilings(pages: list[dict[str, Any]], truths: list[block_training.Truth]) -> None:
    """WCXB word F1 by page type: readings unfiltered and filtered by their labels."""
    from spyglass.extract.readings import KINDS

    columns = ["best unfiltered", *(f"{k} by labels" for k in KINDS), "best by labels"]
    found: dict[str, list[list[float]]] = {}
    for page, truth in zip(pages, truths, strict=True):
        if page["corpus"] != "wcxb":
            continue
        filtered = [truth.page.score(by_labels(page["texts"][k], truth))["f1"] for k in KINDS]
        best = max(page["scores"][k]["f1"] for k in KINDS)
        row = [best, *filtered, max(filtered)]
        found.setdefault("all", []).append(row)
        found.setdefault(page["type"], []).append(row)
    print("| WCXB pages (word F1) | pages | " + " | ".join(columns) + " |")
    print("|---" * (len(columns) + 2) + "|")
    for name, rows in sorted(found.items(), key=lambda item: -len(item[1])):
        means = [statistics.fmean(column) for column in zip(*rows, strict=True)]
        print(f"| {name} | {len(rows)} | " + " | ".join(f"{m:.3f}" for m in means) + " |")


#: A page and one of its readings' Markdown -> one row of extra columns per non-empty block.
Columns = Callable[[dict[str, Any], str], list[list[float]]]


def of_families(families: list[str]) -> Columns:
    """The ``families``' columns, read from the reading alone."""
    return lambda page, markdown: extra_columns(markdown, families)


def with_columns(
    per_page: list[block_training.PageBlocks], pages: list[dict[str, Any]], columns: Columns
) -> list[block_training.PageBlocks]:
    """The cached block rows with ``columns`` appended (a reading without blocks keeps its
    empty rows)."""
    import numpy

    grown: list[block_training.PageBlocks] = []
    for page, found in zip(pages, per_page, strict=True):
        if found is None:
            grown.append(None)
            continue
        kinds = {}
        for kind, (x, y, w) in found.items():
            if len(x):
                extra = columns(page, page["texts"][kind])
                x = numpy.hstack([x, numpy.asarray(extra, dtype=numpy.float32)])
            kinds[kind] = (x, y, w)
        grown.append(kinds)
    return grown


def held_out(
    pages: list[dict[str, Any]],
    truths: list[block_training.Truth],
    fold_of: list[int],
    chosen: list[str],
    per_page: list[block_training.PageBlocks],
    names: list[str],
    models: list[Any] | None = None,
) -> variants.Grid:
    """The chosen reading of every page filtered by its fold's block model (``models``, or
    trained on ``per_page``), scored at every keep threshold."""
    if models is None:
        models = variants.block_models(per_page, fold_of, names, pages)
    grid: variants.Grid = []
    for index, page in enumerate(pages):
        kind = chosen[index]
        text = page["texts"][kind]
        found = per_page[index]
        if found is None:
            kept = [text] * len(training.KEEP_GRID)
        else:
            x = found[kind][0]
            blocks = split_blocks(text)
            model = models[fold_of[index]]
            chances = iter(model.predict(x.astype("float64"), num_threads=1) if len(x) else [])
            scored = Scored(
                text, blocks, [float(next(chances)) if b.text.strip() else None for b in blocks]
            )
            kept = [scored.kept(t) for t in training.KEEP_GRID]
        scores = truths[index].page.score
        grid.append({kind: {t: scores(k) for t, k in zip(training.KEEP_GRID, kept, strict=True)}})
    return grid


class Mean:
    """Block models answering together: the mean of their chances."""

    def __init__(self, models: list[Any]) -> None:
        self.models = models

    def predict(self, x: Any, num_threads: int = 1) -> Any:
        import numpy

        return numpy.mean([m.predict(x, num_threads=num_threads) for m in self.models], axis=0)


def bagged(
    per_page: list[block_training.PageBlocks],
    fold_of: list[int],
    names: list[str],
    pages: list[dict[str, Any]],
    shipped: list[Any],
    count: int,
) -> list[Mean]:
    """Each fold's ``shipped`` block model and ``count`` − 1 more, each trained on another
    sample of the blocks with the next seed, answering together."""
    saved = dict(block_training.BLOCK_PARAMS)
    sets = [shipped]
    try:
        for index in range(1, count):
            block_training.BLOCK_PARAMS["seed"] = saved["seed"] + index
            salt = f"bag {index}".encode()
            sets.append(variants.block_models(per_page, fold_of, names, pages, salt=salt))
    finally:
        block_training.BLOCK_PARAMS.clear()
        block_training.BLOCK_PARAMS.update(saved)
    return [Mean([models[fold] for models in sets]) for fold in range(extraction_data.FOLDS)]


@dataclass
class Held:
    """What every held-out row of one run shares: the folds, each page's chosen reading
    (the shipped chooser retrained per fold) and the cached block rows."""

    pages: list[dict[str, Any]]
    truths: list[block_training.Truth]
    fold_of: list[int]
    chosen: list[str]
    per_page: list[block_training.PageBlocks]
    names: list[str]

    def grid(
        self,
        models: list[Any] | None = None,
        per_page: list[block_training.PageBlocks] | None = None,
        names: list[str] | None = None,
    ) -> variants.Grid:
        """:func:`held_out` over these pages, with other rows when given."""
        return held_out(
            self.pages,
            self.truths,
            self.fold_of,
            self.chosen,
            self.per_page if per_page is None else per_page,
            self.names if names is None else names,
            models,
        )


#: One variant of the block model: its row's title and grid, given the shipped models.
Variant = Callable[[Held, list[Any]], tuple[str, variants.Grid]]


def grown_by(columns: Columns, names: list[str], label: str) -> Variant:
    """The block model trained with ``columns`` (named ``names``) after the shipped ones."""
    grown: list[block_training.PageBlocks] = []

    def other(held: Held, shipped: list[Any]) -> tuple[str, variants.Grid]:
        if not grown:
            grown.extend(with_columns(held.per_page, held.pages, columns))
        seed = block_training.BLOCK_PARAMS["seed"]
        return f"with {label}, seed {seed}", held.grid(None, grown, [*held.names, *names])

    return other


def bag_of(count: int) -> Variant:
    """The mean of ``count`` block models a fold (:func:`bagged`)."""

    def other(held: Held, shipped: list[Any]) -> tuple[str, variants.Grid]:
        models = bagged(held.per_page, held.fold_of, held.names, held.pages, shipped, count)
        seed = block_training.BLOCK_PARAMS["seed"]
        return f"mean of {count} block models, seeds from {seed}", held.grid(models)

    return other


def compare(
    pages: list[dict[str, Any]],
    truths: list[block_training.Truth],
    seeds: list[int],
    other: Variant,
) -> None:
    """For each seed, a row for the shipped block model and one for ``other``."""
    from bench.page_types import shipped_chooser

    fold_of = extraction_data.folds(pages)
    per_page = block_training.block_data(pages, truths, False)
    names = block_training.block_names(pages)
    chosen = variants.held_out_choice(pages, fold_of, shipped_chooser(pages))
    held = Held(pages, truths, fold_of, chosen, per_page, names)
    table = variants.Table()
    saved = dict(block_training.BLOCK_PARAMS)
    for seed in seeds:
        block_training.BLOCK_PARAMS["seed"] = seed
        try:
            shipped = variants.block_models(per_page, fold_of, names, pages)
            figures = variants.keep_held_out(pages, fold_of, chosen, held.grid(shipped))
            table.row(f"shipped block model, seed {seed}", *figures)
            title, grid = other(held, shipped)
            table.row(title, *variants.keep_held_out(pages, fold_of, chosen, grid))
        finally:
            block_training.BLOCK_PARAMS.clear()
            block_training.BLOCK_PARAMS.update(saved)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--extra", default="", help="families of block columns, of " + ",".join(FAMILIES)
    )
    parser.add_argument(
        "--bag", type=int, default=0, help="the mean of this many block models a fold"
    )
    parser.add_argument("--seeds", default="20261130", help="the block model's seeds")
    options = parser.parse_args()
    families = [name for name in options.extra.split(",") if name]
    for name in families:
        if name not in FAMILIES:
            parser.error(f"unknown family {name!r}; choose from {', '.join(FAMILIES)}")
    if options.bag == 1 or options.bag < 0:
        parser.error("--bag takes two models or more")
    if options.bag and families:
        parser.error("--bag and --extra are measured apart; give one of them")
    started = time.perf_counter()
    pages = training.collect(1, False)
    truths = block_training.truths(pages)
    if not families and not options.bag:
        ceilings(pages, truths)
        print(f"({time.perf_counter() - started:.0f} s)")
        return 0
    if options.bag:
        other = bag_of(options.bag)
    else:
        columns = [column for name in families for column in FAMILIES[name][1]]
        other = grown_by(of_families(families), columns, "+".join(families))
    compare(pages, truths, [int(s) for s in options.seeds.split(",")], other)
    print(f"({time.perf_counter() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
