"""A page-type model the chooser can lean on: held out, by page type (issue #12, round eight).

    .venv/bin/python bench/page_types.py [--jobs 2] [--rebuild] [--seeds 20261130,7,99]
    .venv/bin/python bench/page_types.py --variants shipped --chooser '{"extra_trees": false}'

WCXB labels every page with its type (article, service, product, collection, forum,
listing, documentation); the chooser only ever learned from per-reading score differences.
This trains a small multiclass LightGBM model on those labels, from the page's part of the
chooser's row plus what :func:`bench.page_markup.type_features` reads of the markup's
names (computed once per page with ``--jobs`` processes and cached in ``bench/results/``),
and feeds its class probabilities to the chooser as extra columns (stacking).

Nothing is seen twice: a held-out page's probabilities come from a type model trained on
the other four folds' sites, and the chooser's training pages of each fold get theirs from
a type model trained on the folds that are neither the held-out one nor their own (nested,
so no type label of the held-out fold reaches the chooser that decides it). Every chooser
is then judged exactly as in ``bench/chooser_variants.py``: every reading filtered by its
fold's block model (that script's cache), keep thresholds of the shipped rule chosen per fold
on the other folds at precision 0.907, the objective per fold against the first row.

The ``shipped`` rows are the shipped chooser retrained per fold with each seed, the
resolution every other row is read against; ``--chooser`` changes its LightGBM settings for
those rows, so a setting of the chooser is measured the way the shipped one is.

trafilatura-eval's pages are all labelled ``news/blog``, a corpus label rather than a
page's: by default they are not used to train the type model (only given its
probabilities); ``article`` rows train it on them as articles as well.
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import (  # noqa: E402
    block_training,
    choice_losses,
    extraction_data,
    keep_rules,
)
from bench import chooser_variants as variants  # noqa: E402
from bench import train_extraction as training  # noqa: E402
from bench.extraction_data import load  # noqa: E402

TYPE_CACHE = ROOT / "bench" / "results" / "extraction-page-types.pkl"
TYPES = ("article", "service", "product", "collection", "forum", "listing", "documentation")
#: Where the page's part of a chooser row begins (kind, 10 own, 30 readings', 6 shared).
PAGE_START = 47
TYPE_PARAMS: dict[str, Any] = {
    **training.PARAMS,
    "objective": "multiclass",
    "num_class": len(TYPES),
    "num_leaves": 15,
    "min_data_in_leaf": 10,
}
TYPE_ROUNDS = 200


def read_types(item: tuple[str, str]) -> dict[str, float]:
    from bench.page_markup import type_features
    from spyglass.extract.tree import parse

    page = load(*item)
    tree = parse(page.html)
    return {} if tree is None else type_features(tree, page.url)


def markup_features(
    pages: list[dict[str, Any]], jobs: int, rebuild: bool
) -> tuple[list[list[float]], list[str]]:
    """Every page's :func:`~bench.page_markup.type_features` (zeros without a tree),
    and their names."""
    if TYPE_CACHE.exists() and not rebuild:
        with TYPE_CACHE.open("rb") as handle:
            cached: dict[str, Any] = pickle.load(handle)
    else:
        work = [(p["corpus"], p["id"]) for p in pages]
        with ProcessPoolExecutor(jobs) as pool:
            found = list(pool.map(read_types, work, chunksize=8))
        cached = {"keys": work, "features": found}
        with TYPE_CACHE.open("wb") as handle:
            pickle.dump(cached, handle)
    by_key = dict(zip(cached["keys"], cached["features"], strict=True))
    names = next(list(f) for f in cached["features"] if f)
    return [[by_key[(p["corpus"], p["id"])].get(n, 0.0) for n in names] for p in pages], names


class TypeModels:
    """Type models trained on the pages of the folds not excluded, by excluded folds."""

    def __init__(
        self,
        pages: list[dict[str, Any]],
        fold_of: list[int],
        inputs: list[list[float]],
        with_trafilatura: bool,
        seed: int,
    ) -> None:
        self.pages, self.fold_of, self.inputs = pages, fold_of, inputs
        self.with_trafilatura, self.seed = with_trafilatura, seed
        self._models: dict[frozenset[int], Any] = {}

    def label(self, index: int) -> int | None:
        page = self.pages[index]
        if page["corpus"] == "wcxb":
            return TYPES.index(page["type"])
        return TYPES.index("article") if self.with_trafilatura else None

    def model(self, excluded: frozenset[int]) -> Any:
        if excluded not in self._models:
            import lightgbm
            import numpy

            train = [
                i
                for i, f in enumerate(self.fold_of)
                if f not in excluded and self.label(i) is not None
            ]
            data = lightgbm.Dataset(
                numpy.asarray([self.inputs[i] for i in train], dtype=numpy.float64),
                numpy.asarray([self.label(i) for i in train], dtype=numpy.float64),
            )
            params = {**TYPE_PARAMS, "seed": self.seed}
            self._models[excluded] = lightgbm.train(params, data, num_boost_round=TYPE_ROUNDS)
        return self._models[excluded]

    def probabilities(self, indices: list[int], excluded: frozenset[int]) -> dict[int, list[float]]:
        import numpy

        if not indices:
            return {}
        matrix = numpy.asarray([self.inputs[i] for i in indices], dtype=numpy.float64)
        predicted = self.model(excluded).predict(matrix, num_threads=1)
        return {i: [float(v) for v in row] for i, row in zip(indices, predicted, strict=True)}


def type_inputs(pages: list[dict[str, Any]], markup: list[list[float]] | None) -> list[list[float]]:
    """The type model's row of each page: the page's part of the chooser's row (the same
    for every reading; zeros for a page without a tree), then the markup's names."""
    width = len(next(p["rows"][0] for p in pages if p["rows"])) - variants_context_start()
    rows = []
    for index, page in enumerate(pages):
        context = (
            list(page["rows"][0][variants_context_start() :]) if page["rows"] else [0.0] * width
        )
        rows.append(context + (markup[index] if markup is not None else []))
    return rows


def variants_context_start() -> int:
    from spyglass.extract.features import CONTEXT_START

    return CONTEXT_START


class Oracle:
    """The true types as one-hot columns (trafilatura-eval's pages as articles): how much
    a perfect type model could give the chooser at most."""

    def __init__(self, pages: list[dict[str, Any]]) -> None:
        self.pages = pages

    def probabilities(self, indices: list[int], excluded: frozenset[int]) -> dict[int, list[float]]:
        found = {}
        for index in indices:
            kind = self.pages[index]["type"]
            kind = kind if kind in TYPES else "article"
            found[index] = [float(t == kind) for t in TYPES]
        return found


class Columns:
    """Fixed columns per page (the markup's numbers themselves, no type model)."""

    def __init__(self, values: list[list[float]], names: list[str]) -> None:
        self.values, self.names = values, names

    def probabilities(self, indices: list[int], excluded: frozenset[int]) -> dict[int, list[float]]:
        return {i: self.values[i] for i in indices}


Source = TypeModels | Oracle | Columns


def with_types(
    page: dict[str, Any], values: list[float], names: list[str] | None = None
) -> dict[str, Any]:
    """``page`` with ``values`` (the type probabilities) ending every reading's row."""
    if page["rows"] is None:
        return page
    return {
        **page,
        "rows": [[*row, *values] for row in page["rows"]],
        "names": [*page["names"], *(names or [f"type_{t}" for t in TYPES])],
    }


def stacked_choice(
    pages: list[dict[str, Any]], fold_of: list[int], models: Source, seed: int
) -> tuple[list[str], dict[int, list[float]]]:
    """Every page's reading as picked by a chooser that reads type probabilities, trained
    on the other folds; and the held-out probabilities of every page."""
    names = getattr(models, "names", None)
    chosen = [""] * len(pages)
    held_out: dict[int, list[float]] = {}
    for fold in range(extraction_data.FOLDS):
        test = [i for i, f in enumerate(fold_of) if f == fold]
        held_out.update(models.probabilities(test, frozenset({fold})))
        train: list[dict[str, Any]] = []
        for other in range(extraction_data.FOLDS):
            if other == fold:
                continue
            inside = [i for i, f in enumerate(fold_of) if f == other]
            found = models.probabilities(inside, frozenset({fold, other}))
            train += [with_types(pages[i], found[i], names) for i in inside if pages[i]["rows"]]

        def target(index: int, rows: list[dict[str, Any]] = train) -> list[float]:
            return chooser_targets(rows[index])

        chooser = variants.fit_chooser(train, list(range(len(train))), target, {"seed": seed})
        for index in test:
            chosen[index] = training.pick(chooser, with_types(pages[index], held_out[index], names))
    return chosen, held_out


def chooser_targets(page: dict[str, Any]) -> list[float]:
    from spyglass.extract.readings import KINDS

    return [page["scores"][k]["f1"] for k in KINDS]


def shipped_chooser(
    pages: list[dict[str, Any]], include: Callable[[int], bool] | None = None
) -> Callable[[list[int]], Any]:
    """Fits the shipped chooser on the training pages it is given (those ``include``
    admits, when given), for :func:`bench.chooser_variants.held_out_choice`."""

    def fit(train: list[int]) -> Any:
        kept = train if include is None else [i for i in train if include(i)]
        return variants.fit_chooser(pages, kept, lambda i: chooser_targets(pages[i]))

    return fit


def predicted_group(record: dict[str, Any], names: dict[str, int], article: float) -> str:
    """The declared type's group (round twenty-three's rule) where the page declares a type;
    otherwise whether the type model calls it an article (``article`` is its chance)."""
    declared = keep_rules.RULES[keep_rules.DECLARED_TYPE](record, names)
    if declared != "none":
        return declared
    return "none/article" if article >= 0.5 else "none/other"


def keep_by_type(
    pages: list[dict[str, Any]],
    fold_of: list[int],
    chosen: list[str],
    grid: variants.Grid,
    models: Source,
) -> tuple[dict[str, Any], list[float]]:
    """:func:`bench.chooser_variants.keep_held_out` with the pages that declare no type
    split by the type model's call (article or not), each part its own threshold; the
    thresholds of each held-out fold chosen on the other folds with their pages' types
    from models that saw neither fold."""
    records = variants.records_of(pages, fold_of, chosen, grid)
    names = {name: i for i, name in enumerate(next(p["names"] for p in pages if p["rows"]))}
    article = TYPES.index("article")
    picked = [0.0] * len(pages)
    for fold in range(extraction_data.FOLDS):
        test = [i for i, f in enumerate(fold_of) if f == fold]
        train = [i for i, f in enumerate(fold_of) if f != fold]
        inner: dict[int, list[float]] = {}
        for other in range(extraction_data.FOLDS):
            if other != fold:
                inside = [i for i in train if fold_of[i] == other]
                inner.update(models.probabilities(inside, frozenset({fold, other})))
        groups = [predicted_group(records[i], names, inner[i][article]) for i in train]
        thresholds = keep_rules.choose_thresholds(
            [records[i] for i in train], groups, training.KEEP_GRID, floor=variants.FLOOR
        )
        held_out = models.probabilities(test, frozenset({fold}))
        for index in test:
            group = predicted_group(records[index], names, held_out[index][article])
            picked[index] = thresholds.get(group, 0.4)
    per_fold = []
    for fold in range(extraction_data.FOLDS):
        inside = [i for i, f in enumerate(fold_of) if f == fold]
        part = keep_rules.summarise([records[i] for i in inside], [picked[i] for i in inside])
        per_fold.append((part["wcxb"]["overall"] + part["f1"]) / 2)
    return keep_rules.summarise(records, picked), per_fold


def confusion(pages: list[dict[str, Any]], held_out: dict[int, list[float]]) -> None:
    """The type model's held-out accuracy and confusion on WCXB, and what it calls
    trafilatura-eval's pages."""
    matrix: Counter[tuple[str, str]] = Counter()
    traf: Counter[str] = Counter()
    for index, page in enumerate(pages):
        chances = held_out[index]
        guess = TYPES[chances.index(max(chances))]
        if page["corpus"] == "wcxb":
            matrix[(page["type"], guess)] += 1
        else:
            traf[guess] += 1
    total = sum(matrix.values())
    right = sum(n for (truth, guess), n in matrix.items() if truth == guess)
    print(f"\ntype model, held out: accuracy {right / total:.3f} on {total} WCXB pages")
    print("| type (pages) | " + " | ".join(TYPES) + " | recall |")
    print("|---" * (len(TYPES) + 2) + "|")
    for truth in TYPES:
        count = sum(matrix[(truth, g)] for g in TYPES)
        cells = " | ".join(str(matrix[(truth, g)]) for g in TYPES)
        print(f"| {truth} ({count}) | {cells} | {matrix[(truth, truth)] / max(count, 1):.3f} |")
    called = ", ".join(f"{t} {traf[t]}" for t in TYPES if traf[t])
    print(f"trafilatura-eval pages called: {called}\n")


def filtered_grid(pages: list[dict[str, Any]], fold_of: list[int]) -> variants.Grid:
    """Every reading of every page filtered by its fold's block model and scored at every
    keep threshold: ``bench/chooser_variants.py``'s cache, built as it builds it."""
    from spyglass.extract.readings import KINDS

    if variants.FILTERED_CACHE.exists():
        with variants.FILTERED_CACHE.open("rb") as handle:
            cached: variants.Grid = pickle.load(handle)
            return cached
    truths = block_training.truths(pages)
    per_page = block_training.block_data(pages, truths, False)
    models = variants.block_models(per_page, fold_of, block_training.block_names(pages), pages)
    grid = variants.filtered_grid(pages, truths, models, fold_of, lambda i: list(KINDS))
    with variants.FILTERED_CACHE.open("wb") as handle:
        pickle.dump(grid, handle)
    return grid


VARIANTS = ("shipped", "markup", "trafilatura", "page", "oracle", "columns", "keep")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--jobs", type=int, default=2, help="worker processes for reading")
    parser.add_argument("--rebuild", action="store_true", help="re-read the pages' markup")
    parser.add_argument("--seeds", default=",".join(str(s) for s in variants.SEEDS))
    parser.add_argument(
        "--variants", default=",".join(VARIANTS), help="which rows, of " + ",".join(VARIANTS)
    )
    parser.add_argument("--losses", action="store_true", help="where the choice loses, per row")
    parser.add_argument(
        "--keep-rule",
        default=keep_rules.SHIPPED,
        choices=sorted(keep_rules.RULES),
        help="how the `shipped` rows group pages for their keep thresholds",
    )
    parser.add_argument(
        "--shingles",
        action="store_true",
        help="under each row, WCXB's shingle F1 (P, R) by type and the pages longer than "
        "1.5 times their reference",
    )
    parser.add_argument(
        "--chooser",
        type=json.loads,
        default={},
        metavar="JSON",
        help="LightGBM settings over the shipped chooser's for the `shipped` rows, "
        'e.g. \'{"min_data_in_leaf": 80}\' ("rounds": the number of trees)',
    )
    options = parser.parse_args()
    seeds = [int(s) for s in options.seeds.split(",")]
    wanted = options.variants.split(",")
    started = time.perf_counter()
    pages = training.collect(1, False)
    fold_of = extraction_data.folds(pages)
    markup, markup_names = markup_features(pages, options.jobs, options.rebuild)
    print(f"markup features read ({time.perf_counter() - started:.0f} s)", flush=True)
    grid = filtered_grid(pages, fold_of)
    at = variants.shipped_thresholds(pages)
    table = variants.Table()

    def row(title: str, chosen: list[str], kept: tuple[dict[str, Any], list[float]]) -> None:
        table.row(title, *kept)
        if options.shingles:
            print(shingle_line(kept[0]))
        if options.losses:
            choice_losses.losses(pages, chosen, grid, at)

    def shipped_choice(seed: int) -> list[str]:
        return variants.held_out_choice(
            pages,
            fold_of,
            lambda t: variants.fit_chooser(
                pages, t, lambda i: chooser_targets(pages[i]), {**options.chooser, "seed": seed}
            ),
        )

    for seed in seeds if "shipped" in wanted else []:
        chosen = shipped_choice(seed)
        row(
            f"shipped chooser, seed {seed}",
            chosen,
            variants.keep_held_out(pages, fold_of, chosen, grid, options.keep_rule),
        )
    models: dict[str, Callable[[int], Source]] = {
        "markup": lambda s: TypeModels(pages, fold_of, type_inputs(pages, markup), False, s),
        "trafilatura": lambda s: TypeModels(pages, fold_of, type_inputs(pages, markup), True, s),
        "page": lambda s: TypeModels(pages, fold_of, type_inputs(pages, None), False, s),
        "oracle": lambda s: Oracle(pages),
        "columns": lambda s: Columns(markup, [f"markup_{n}" for n in markup_names]),
    }
    titles = {
        "markup": "page types from the markup's names",
        "trafilatura": "page types, trafilatura-eval trained as articles",
        "page": "page types from the chooser's page features only",
        "oracle": "the true page types (one-hot; not available at run time)",
        "columns": "the markup's names as chooser columns, no type model",
    }
    held: dict[str, dict[int, list[float]]] = {}
    for name in [v for v in wanted if v in models]:
        for seed in seeds:
            source = models[name](seed)
            chosen, held_out = stacked_choice(pages, fold_of, source, seed)
            if isinstance(source, TypeModels):
                held.setdefault(titles[name], held_out)
            kept = variants.keep_held_out(pages, fold_of, chosen, grid)
            row(f"{titles[name]}, seed {seed}", chosen, kept)
    for seed in seeds if "keep" in wanted else []:
        chosen = shipped_choice(seed)
        source = models["markup"](seed)
        kept = keep_by_type(pages, fold_of, chosen, grid, source)
        row(
            f"shipped chooser; undeclared pages' threshold by predicted type, seed {seed}",
            chosen,
            kept,
        )
    for title, held_out in held.items():
        print(f"\n{title}:", end="")
        confusion(pages, held_out)
    print(f"({time.perf_counter() - started:.0f} s)")
    return 0


def shingle_line(figures: dict[str, Any]) -> str:
    """WCXB's figures by the article-extraction benchmark's measure (four-word shingles),
    overall and by type, as one line under a table row."""
    shingles = figures.get("shingles") or {}
    if not shingles:
        return "  (no shingle counts: remove bench/results/extraction-filtered*.pkl and rerun)"
    cells = [
        f"{group} {s['shingle_f1']:.3f} (P {s['shingle_precision']:.3f}, "
        f"R {s['shingle_recall']:.3f}, {s['longer_than_1_5']} > 1.5x)"
        for group in ["overall", *keep_rules.TYPES]
        if (s := shingles.get(group))
    ]
    return "  shingle F1: " + "; ".join(cells)


if __name__ == "__main__":
    sys.exit(main())
