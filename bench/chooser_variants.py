"""What the chooser's objective, its sample weights, the block model's weights and labels and
the training seed change, held out (issue #12, round seven).

    .venv/bin/python bench/chooser_variants.py [--blocks | --snippets] [--rebuild]

Reads the caches ``bench/train_extraction.py`` writes (run it first). Every reading of every
page is filtered by the block model of its fold (trained on the other four folds' sites) and
scored at every keep threshold of ``KEEP_GRID``; cached in ``bench/results/`` (``--rebuild``).
Then each chooser variant is trained per fold as ``train_extraction.py`` trains the shipped
one, picks a reading for every held-out page, and the keep thresholds of the shipped rule are
chosen per fold on the other folds keeping trafilatura-eval precision at 0.907, as shipped
(``bench/keep_rules.py``): one table row per variant, the objective per fold against the
shipped chooser, and where the shipped choice loses against the best reading, by page type.
``--blocks`` does the same for block-model variants (trafilatura-eval blocks weighed more,
labels as the share of a block's trigrams in the reference), the shipped chooser choosing.
``--snippets`` says where trafilatura-eval's snippets go with the shipped path (which
reading, cut by the filter or never read, which kind of block holds a `without` snippet).
The seed rows say how far a retrained model moves by chance: the resolution of every row.
"""

from __future__ import annotations

import argparse
import pickle
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import (  # noqa: E402
    block_training,
    extraction_data,
    keep_rules,
)
from bench import train_extraction as training  # noqa: E402
from bench.choice_losses import losses  # noqa: E402

#: Named for the block model that filtered it (each corpus's blocks the same total weight).
FILTERED_CACHE = ROOT / "bench" / "results" / "extraction-filtered-balanced.pkl"
FLOOR = 0.907
SEEDS = (extraction_data.SEED, 7, 99)
#: A page's value of each reading as a chooser target (see :func:`fit_chooser`).
Target = Callable[[int], list[float]]
Weight = Callable[[dict[str, Any]], float]
#: Held-out scores: per page, per reading, per keep threshold.
Grid = list[dict[str, dict[float, dict[str, float]]]]


def best_of(scores: Any) -> str:
    """The reading whose score in ``scores`` (one per reading, in ``KINDS`` order) is the
    highest."""
    from spyglass.extract.readings import KINDS

    return str(max(KINDS, key=lambda kind: float(scores[KINDS.index(kind)])))


def filtered_grid(
    pages: list[dict[str, Any]],
    truths: list[block_training.Truth],
    models: list[Any],
    fold_of: list[int],
    kinds_of: Callable[[int], list[str]],
) -> Grid:
    """The ``kinds_of(page)`` readings of every page filtered by its fold's block model, scored
    at every :data:`~bench.train_extraction.KEEP_GRID` threshold."""
    grid: Grid = []
    for index, page in enumerate(pages):
        chances = block_training.one_pass(models[fold_of[index]])
        by_kind = {}
        for kind in kinds_of(index):
            texts = block_training.filtered(chances, page, kind, training.KEEP_GRID)
            by_kind[kind] = {
                t: truths[index].page.score(text)
                for t, text in zip(training.KEEP_GRID, texts, strict=True)
            }
        grid.append(by_kind)
    return grid


def block_models(
    per_page: list[Any],
    fold_of: list[int],
    names: list[str],
    pages: list[dict[str, Any]],
    balance: bool = True,
    include: Callable[[int], bool] | None = None,
    salt: bytes = b"",
) -> list[Any]:
    """The block model of each fold, trained on the other folds' pages (each corpus's blocks
    weighing the same, as shipped since round seven, unless not ``balance``; only the pages
    ``include`` admits, when given; on the sample ``salt`` draws)."""
    return [
        block_training.fit_blocks(
            block_training.readings_of(
                per_page,
                [i for i, f in enumerate(fold_of) if f != fold and (include is None or include(i))],
                pages,
                balance,
            ),
            names,
            salt,
        )
        for fold in range(extraction_data.FOLDS)
    ]


def fit_chooser(
    pages: list[dict[str, Any]],
    train: list[int],
    target: Target,
    params: dict[str, Any] | None = None,
    weight: Weight | None = None,
    rank: str = "",
) -> Any:
    """A chooser on the ``train`` pages: regression on each reading's ``target`` minus the
    page's mean (the shipped objective), or LambdaRank with the page as the query group and
    as labels the reading's rank in the page (``rank="order"``) or its target in twentieths
    (``rank="twentieths"``, gains linear in the score)."""
    import lightgbm
    import numpy

    settings = {**training.PARAMS, **(params or {})}
    rounds = settings.pop("rounds", training.ROUNDS)
    rows: list[list[float]] = []
    labels: list[float] = []
    weights: list[float] = []
    groups: list[int] = []
    for index in train:
        page = pages[index]
        if page["rows"] is None:
            continue
        values = target(index)
        rows += page["rows"]
        labels += labels_of(values, rank)
        weights += [weight(page) if weight else 1.0] * len(values)
        groups.append(len(values))
    data = lightgbm.Dataset(
        numpy.asarray(rows, dtype=numpy.float64),
        numpy.asarray(labels, dtype=numpy.float64),
        weight=numpy.asarray(weights, dtype=numpy.float64),
        group=groups if rank else None,
        feature_name=pages[train[0]]["names"],
        categorical_feature=["kind"],
    )
    return lightgbm.train(settings, data, num_boost_round=rounds)


def labels_of(values: list[float], rank: str = "") -> list[float]:
    """What a chooser learns of a page's readings worth ``values``: each minus their mean
    (regression), the number of readings it beats (``"order"``), or the value in twentieths
    (``"twentieths"``; LambdaRank needs whole labels)."""
    if rank == "order":
        return [float(sum(v > other for other in values)) for v in values]
    if rank == "twentieths":
        return [float(round(max(v, 0.0) * 20)) for v in values]
    centre = sum(values) / len(values)
    return [v - centre for v in values]


class Averaged:
    """Several boosters' predictions summed (a chooser bagged over seeds)."""

    def __init__(self, boosters: list[Any]) -> None:
        self.boosters = boosters

    def predict(self, rows: Any, num_threads: int = 1) -> Any:
        return sum(b.predict(rows, num_threads=num_threads) for b in self.boosters)


def held_out_choice(
    pages: list[dict[str, Any]], fold_of: list[int], fit: Callable[[list[int]], Any]
) -> list[str]:
    """Every page's reading as picked by a chooser ``fit`` on the other folds."""
    chosen = [""] * len(pages)
    for fold in range(extraction_data.FOLDS):
        chooser = fit([i for i, f in enumerate(fold_of) if f != fold])
        for index, page in enumerate(pages):
            if fold_of[index] == fold:
                chosen[index] = training.pick(chooser, page)
    return chosen


def records_of(
    pages: list[dict[str, Any]], fold_of: list[int], chosen: list[str], grid: Grid
) -> list[dict[str, Any]]:
    """What :mod:`bench.keep_rules` reads of each page, for the chosen readings."""
    from spyglass.extract.readings import KINDS

    return [
        {
            "corpus": page["corpus"],
            "type": page["type"],
            "fold": fold_of[index],
            "reading": chosen[index],
            "row": None if page["rows"] is None else page["rows"][KINDS.index(chosen[index])],
            "scores": grid[index][chosen[index]],
        }
        for index, page in enumerate(pages)
    ]


def keep_held_out(
    pages: list[dict[str, Any]],
    fold_of: list[int],
    chosen: list[str],
    grid: Grid,
    rule: str = keep_rules.SHIPPED,
) -> tuple[dict[str, Any], list[float]]:
    """Figures of the chosen readings with the shipped keep rule (thresholds by declared
    type chosen per fold on the other folds at the precision floor), and the objective per
    fold."""
    records = records_of(pages, fold_of, chosen, grid)
    names = {name: i for i, name in enumerate(next(p["names"] for p in pages if p["rows"]))}
    groups = [keep_rules.RULES[rule](r, names) for r in records]
    picked, _ = keep_rules.held_out(records, groups, training.KEEP_GRID, FLOOR)
    per_fold = []
    for fold in range(extraction_data.FOLDS):
        inside = [i for i, r in enumerate(records) if r["fold"] == fold]
        part = keep_rules.summarise([records[i] for i in inside], [picked[i] for i in inside])
        per_fold.append((part["wcxb"]["overall"] + part["f1"]) / 2)
    return keep_rules.summarise(records, picked), per_fold


class Table:
    """Rows in docs/benchmarks.md's format, and each row's objective per fold against the
    first row's."""

    def __init__(self) -> None:
        self.first: list[float] | None = None
        print(
            "| variant (held out) | WCXB F1 | " + " | ".join(keep_rules.TYPES) + " | length "
            "ratio | `without` found | trafilatura-eval P | R | F1 | objective | per fold |"
        )
        print("|---" * 16 + "|")

    def row(self, title: str, figures: dict[str, Any], per_fold: list[float]) -> None:
        if self.first is None:
            self.first = per_fold
        moved = " ".join(f"{a - b:+.4f}" for a, b in zip(per_fold, self.first, strict=True))
        print(keep_rules.row_of(title, figures) + f" {moved} |", flush=True)


def traf_weight(factor: float) -> Weight:
    return lambda page: factor if page["corpus"] != "wcxb" else 1.0


def shipped_thresholds(pages: list[dict[str, Any]]) -> list[dict[str, float]]:
    """Each page's shipped keep threshold of each reading, by kind."""
    from spyglass.extract.thresholds import page_thresholds

    names = next(p["names"] for p in pages if p["rows"])
    # A page without rows declares nothing: its readings are cut as a silent page's are.
    silent = page_thresholds({})
    return [
        page_thresholds(dict(zip(names, p["rows"][0], strict=True))) if p["rows"] else silent
        for p in pages
    ]


def chooser_rows(pages: list[dict[str, Any]], fold_of: list[int], grid: Grid) -> None:
    from spyglass.extract.readings import KINDS

    def unfiltered(index: int) -> list[float]:
        return [pages[index]["scores"][k]["f1"] for k in KINDS]

    at = shipped_thresholds(pages)

    def utility(index: int) -> list[float]:
        # trafilatura-eval is scored on snippets summed over pages: near today's counts a
        # `with` found is worth about 1/0.86 `without` found to the pooled F1, and 0.3
        # puts a snippet on the scale of a WCXB page's F1 in the objective.
        page = pages[index]
        if page["corpus"] == "wcxb":
            return unfiltered(index)
        return [0.3 * (page["scores"][k]["tp"] - 0.86 * page["scores"][k]["fp"]) for k in KINDS]

    def output(index: int) -> list[float]:
        return [grid[index][k][at[index][k]]["f1"] for k in KINDS]

    rank = {"objective": "lambdarank", "lambdarank_truncation_level": 3, "label_gain": [0, 1, 3]}
    linear = {
        "objective": "lambdarank",
        "lambdarank_truncation_level": 1,
        "label_gain": list(range(21)),
    }
    variants: list[tuple[str, Callable[[list[int]], Any]]] = [
        (
            "shipped: regression on score minus page mean",
            lambda t: fit_chooser(pages, t, unfiltered),
        )
    ]
    for seed in SEEDS[1:]:
        variants.append(
            (
                f"the same, seed {seed}",
                lambda t, s=seed: fit_chooser(pages, t, unfiltered, {"seed": s}),  # type: ignore[misc]
            )
        )
    for seed in SEEDS:
        variants.append(
            (
                f"LambdaRank, rank in page as label, seed {seed}",
                lambda t, s=seed: fit_chooser(  # type: ignore[misc]
                    pages, t, unfiltered, {**rank, "seed": s}, rank="order"
                ),
            )
        )
    variants += [
        (
            "LambdaRank, F1 in twentieths as label, top 1",
            lambda t: fit_chooser(pages, t, unfiltered, linear, rank="twentieths"),
        ),
        (
            "regression on the filtered output's score",
            lambda t: fit_chooser(pages, t, output),
        ),
        (
            "the same, trafilatura-eval pages x3",
            lambda t: fit_chooser(pages, t, output, weight=traf_weight(3.0)),
        ),
        *(
            (
                f"trafilatura-eval target: snippets found, pooled, seed {seed}",
                lambda t, s=seed: fit_chooser(pages, t, utility, {"seed": s}),
            )
            for seed in SEEDS
        ),
        (
            "regression, trafilatura-eval pages x2",
            lambda t: fit_chooser(pages, t, unfiltered, weight=traf_weight(2.0)),
        ),
        (
            "regression, trafilatura-eval pages x3",
            lambda t: fit_chooser(pages, t, unfiltered, weight=traf_weight(3.0)),
        ),
        (
            "regression, 7 leaves",
            lambda t: fit_chooser(pages, t, unfiltered, {"num_leaves": 7}),
        ),
        (
            "regression, 31 leaves of >= 40",
            lambda t: fit_chooser(pages, t, unfiltered, {"num_leaves": 31, "min_data_in_leaf": 40}),
        ),
        (
            "regression, 600 trees at rate 0.025",
            lambda t: fit_chooser(pages, t, unfiltered, {"learning_rate": 0.025, "rounds": 600}),
        ),
        (
            "Huber loss",
            lambda t: fit_chooser(pages, t, unfiltered, {"objective": "huber", "alpha": 0.1}),
        ),
        (
            "regression, five seeds averaged",
            lambda t: Averaged(
                [fit_chooser(pages, t, unfiltered, {"seed": s}) for s in (*SEEDS, 1234, 42)]
            ),
        ),
    ]
    table = Table()
    best = [best_of(output(i)) for i in range(len(pages))]
    shipped_choice: list[str] = []
    for title, fit in variants:
        chosen = held_out_choice(pages, fold_of, fit)
        shipped_choice = shipped_choice or chosen
        table.row(title, *keep_held_out(pages, fold_of, chosen, grid))
    table.row(
        "best filtered reading per page (ceiling)", *keep_held_out(pages, fold_of, best, grid)
    )
    losses(pages, shipped_choice, grid, at)


def block_rows(
    pages: list[dict[str, Any]],
    truths: list[block_training.Truth],
    per_page: list[Any],
    fold_of: list[int],
) -> None:
    """Block-model variants, the shipped chooser choosing."""
    chosen = held_out_choice(pages, fold_of, lambda t: training.fit([pages[i] for i in t]))
    names = block_training.block_names(pages)

    def weighed(blocks: list[Any], factor: float) -> list[Any]:
        return [
            None
            if found is None
            else {
                kind: (x, y, w * (factor if pages[i]["corpus"] != "wcxb" else 1.0))
                for kind, (x, y, w) in found.items()
            }
            for i, found in enumerate(blocks)
        ]

    soft = [
        block_training.block_examples(p, Soft(t.page)) for p, t in zip(pages, truths, strict=True)
    ]
    cross_entropy = {"objective": "cross_entropy"}
    # (title, blocks, LightGBM settings, each corpus the same total weight)
    variants: list[tuple[str, list[Any], dict[str, Any], bool]] = [
        *(
            (f"round six: blocks as labelled, seed {s}", per_page, {"seed": s}, False)
            for s in SEEDS
        ),
        *(
            (f"trafilatura-eval blocks x3, seed {s}", weighed(per_page, 3.0), {"seed": s}, False)
            for s in SEEDS
        ),
        ("trafilatura-eval blocks x6", weighed(per_page, 6.0), {}, False),
        *(
            (f"each corpus the same total weight (shipped), seed {s}", per_page, {"seed": s}, True)
            for s in SEEDS
        ),
        ("WCXB label: share of trigrams (cross-entropy)", soft, cross_entropy, False),
        ("the same, trafilatura-eval blocks x3", weighed(soft, 3.0), cross_entropy, False),
        ("the same, each corpus the same total weight", soft, cross_entropy, True),
    ]
    table = Table()
    for title, blocks, params, balance in variants:
        saved = dict(block_training.BLOCK_PARAMS)
        block_training.BLOCK_PARAMS.update(params)
        try:
            models = block_models(blocks, fold_of, names, pages, balance)
        finally:
            block_training.BLOCK_PARAMS.clear()
            block_training.BLOCK_PARAMS.update(saved)
        grid = filtered_grid(pages, truths, models, fold_of, lambda i: [chosen[i]])
        table.row(title, *keep_held_out(pages, fold_of, chosen, grid))


def snippets(
    pages: list[dict[str, Any]],
    truths: list[block_training.Truth],
    per_page: list[Any],
    fold_of: list[int],
) -> None:
    """Where trafilatura-eval's snippets go with the shipped chooser and block filter, every
    decision held out: each `with` snippet found, cut by the filter, missing from the chosen
    reading but in another, or in no reading; each `without` snippet found, by the chosen
    reading and the kind of block holding it."""
    from collections import Counter

    from bench.extraction_data import normalised, plain
    from spyglass.extract.blocks import split_blocks
    from spyglass.extract.readings import KINDS
    from spyglass.extract.thresholds import keep_threshold

    chosen = held_out_choice(pages, fold_of, lambda t: training.fit([pages[i] for i in t]))
    models = block_models(per_page, fold_of, block_training.block_names(pages), pages)
    counts: Counter[str] = Counter()
    for index, page in enumerate(pages):
        if page["corpus"] == "wcxb" or page["rows"] is None:
            continue
        kind = chosen[index]
        threshold = keep_threshold(dict(zip(page["names"], page["rows"][0], strict=True)), kind)
        chances = block_training.one_pass(models[fold_of[index]])
        output = block_training.filtered(chances, page, kind, [threshold])[0]
        seen = normalised(plain(output))
        readings = {k: normalised(plain(page["texts"][k])) for k in KINDS}
        truth = truths[index].page
        for snippet in map(normalised, truth.with_):
            if snippet in seen:
                counts["with: found"] += 1
            elif snippet in readings[kind]:
                counts[f"with: in the chosen {kind} reading, cut by the filter"] += 1
            else:
                holders = "+".join(k for k in KINDS if snippet in readings[k]) or "no reading"
                counts[f"with: not in the chosen {kind} reading; in {holders}"] += 1
        for snippet in map(normalised, truth.without):
            if snippet not in seen:
                counts["without: left out"] += 1
                continue
            block = next(
                (b.kind for b in split_blocks(output) if snippet in normalised(plain(b.text))),
                "across blocks",
            )
            counts[f"without: found in the chosen {kind} reading, {block} block"] += 1
    for label, count in sorted(counts.items()):
        print(f"{count:6,} {label}")


class Soft(block_training.Truth):
    """WCXB blocks labelled by the share of their word trigrams in the reference (not
    whether it reaches half); trafilatura-eval blocks as before."""

    def label(self, text: str) -> float | None:
        tokens = block_training._token_list(text)
        if self.page.corpus != "wcxb" or len(tokens) < 3:
            return super().label(text)
        shingles = [tuple(tokens[i : i + 3]) for i in range(len(tokens) - 2)]
        return sum(s in self.shingles for s in shingles) / len(shingles)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--blocks", action="store_true", help="block-model variants instead")
    parser.add_argument(
        "--snippets", action="store_true", help="where trafilatura-eval's snippets go instead"
    )
    parser.add_argument("--rebuild", action="store_true", help="re-filter, ignore the cache")
    options = parser.parse_args()
    started = time.perf_counter()
    pages = training.collect(1, False)
    truths = block_training.truths(pages)
    per_page = block_training.block_data(pages, truths, False)
    fold_of = extraction_data.folds(pages)
    if options.blocks:
        block_rows(pages, truths, per_page, fold_of)
    elif options.snippets:
        snippets(pages, truths, per_page, fold_of)
    else:
        from spyglass.extract.readings import KINDS

        if FILTERED_CACHE.exists() and not options.rebuild:
            with FILTERED_CACHE.open("rb") as handle:
                grid: Grid = pickle.load(handle)
        else:
            models = block_models(per_page, fold_of, block_training.block_names(pages), pages)
            grid = filtered_grid(pages, truths, models, fold_of, lambda i: list(KINDS))
            with FILTERED_CACHE.open("wb") as handle:
                pickle.dump(grid, handle)
        chooser_rows(pages, fold_of, grid)
    print(f"({time.perf_counter() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
