"""Train the candidate chooser and block filter of web.fetch's extraction, report held-out
folds, ship them.

    .venv/bin/python bench/train_extraction.py [--jobs 2] [--rebuild] [--no-write]
        [--no-cv] [--filter-all] [--keep-rules] [--precision-floor P]

1. Reads every page of WCXB dev (1,497) and trafilatura-eval (884) through
   :func:`spyglass.extract.html.readings`: the three candidate readings, their feature
   rows, and each candidate's score against the page's reference (word F1 on WCXB, a
   per-page snippet F1 on trafilatura-eval). Cached in ``bench/results/`` (``--rebuild``).
2. Five-fold cross-validation grouped by site (a domain is never in training and test at
   once), folds fixed by a seeded shuffle of the domains: each page's candidate is chosen
   by a model that never saw its site. Prints the held-out figures per corpus and page type
   beside the always-article choice and the best candidate per page (the ceiling), then
   the chosen reading with the blocks the block model (trained on the other folds' blocks
   of all three readings) finds unlikely left out, for several thresholds. ``--filter-all``
   also measures the alternative of filtering every reading and choosing among the
   filtered ones, the chooser seeing what the block model made of each.
   ``--keep-rules`` also scores every held-out output at thresholds 0.3–0.7 and measures
   keep thresholds that depend on the page (:mod:`bench.keep_rules`), writing the shipped
   rule's thresholds to ``src/spyglass/extract/models/keep.json`` (unless ``--no-write``).
3. Trains the final models on all pages with the same settings and writes them to
   ``src/spyglass/extract/models/chooser.txt`` and ``blocks.txt`` (unless ``--no-write``).
   Fixed seeds and deterministic LightGBM settings: the same data gives the same files.
"""

from __future__ import annotations

import argparse
import pickle
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.block_training import (  # noqa: E402
    COMMON_PARAMS,
    PageBlocks,
    Truth,
    block_data,
    block_names,
    filtered,
    filtered_pages,
    fit_blocks,
    one_pass,
    out_of_fold,
    readings_of,
)
from bench.extraction_data import (  # noqa: E402
    FOLDS,
    LONGER,
    folds,
    load,
    load_truth,
    page_ids,
    shingle_figures,
)

CACHE = ROOT / "bench" / "results" / "extraction-readings.pkl"
MODELS = ROOT / "src" / "spyglass" / "fetch" / "models"
MODEL = MODELS / "chooser.txt"
BLOCK_MODEL = MODELS / "blocks.txt"
#: Thresholds the held-out figures are printed for.
THRESHOLDS = [0.3, 0.4, 0.5, 0.6]
#: Thresholds the page-dependent keep rules choose among (``--keep-rules``).
KEEP_GRID = [round(0.3 + 0.05 * i, 2) for i in range(9)]
#: Held-out scores of every page at every :data:`KEEP_GRID` threshold (``--keep-rules``).
KEEP_CACHE = ROOT / "bench" / "results" / "extraction-keep-grid.pkl"
#: The chooser's settings.
PARAMS: dict[str, Any] = {
    **COMMON_PARAMS,
    "objective": "regression",
    "num_leaves": 15,
    # Split thresholds drawn at random, leaves of at least 40 pages: the chooser learns from
    # 2,381 pages and fitted them too closely; held out, this scored higher on every one of
    # five seeds than exact splits of 20 (docs/benchmarks.md, round twenty-one).
    "extra_trees": True,
    "min_data_in_leaf": 40,
}
ROUNDS = 300


def read_page(item: tuple[str, str]) -> dict[str, Any]:
    import numpy

    from spyglass.extract.blocks import split_blocks
    from spyglass.extract.features import feature_names
    from spyglass.extract.html import readings, with_fallback
    from spyglass.extract.readings import KINDS
    from spyglass.extract.tree import parse

    corpus, page_id = item
    page = load(corpus, page_id)
    tree = parse(page.html)
    if tree is None:  # nothing to read: extraction returns "" whatever it would choose
        empty = page.score("")
        return {
            "corpus": corpus,
            "id": page_id,
            "type": page.type,
            "domain": page.domain,
            "rows": None,
            "places": None,
            "scores": dict.fromkeys(KINDS, empty),
            "texts": dict.fromkeys(KINDS, ""),
        }
    read = readings(tree, page.url)
    outputs = with_fallback(read.found, tree)
    # Where each block sits in the page needs the tree, which the cache does not keep.
    places = {
        kind: numpy.asarray(
            [read.places.row(b.text) for b in split_blocks(outputs[kind]) if b.text.strip()],
            dtype=numpy.float32,
        )
        for kind in KINDS
    }
    return {
        "places": places,
        "corpus": corpus,
        "id": page_id,
        "type": page.type,
        "domain": page.domain,
        "rows": read.rows,
        "names": feature_names(read.page),
        "scores": {kind: page.score(outputs[kind]) for kind in KINDS},
        "texts": outputs,
    }


def collect(jobs: int, rebuild: bool) -> list[dict[str, Any]]:
    if CACHE.exists() and not rebuild:
        with CACHE.open("rb") as handle:
            cached: list[dict[str, Any]] = pickle.load(handle)
            return cached
    work = [("wcxb", i) for i in page_ids("wcxb")]
    work += [("trafilatura", i) for i in page_ids("trafilatura")]
    if jobs > 1:
        with ProcessPoolExecutor(jobs) as pool:
            pages = list(pool.map(read_page, work, chunksize=8))
    else:
        pages = [read_page(item) for item in work]
    CACHE.parent.mkdir(parents=True, exist_ok=True)
    with CACHE.open("wb") as handle:
        pickle.dump(pages, handle)
    return pages


def targets(page: dict[str, Any]) -> list[float]:
    """Each candidate's score minus the page's mean: the model learns the ranking within a
    page, not how hard the page is."""
    from spyglass.extract.readings import KINDS

    values = [page["scores"][kind]["f1"] for kind in KINDS]
    centre = sum(values) / len(values)
    return [v - centre for v in values]


def fit(pages: list[dict[str, Any]]) -> Any:
    import lightgbm
    import numpy

    pages = [p for p in pages if p["rows"] is not None]
    x = numpy.asarray([row for p in pages for row in p["rows"]], dtype=numpy.float64)
    y = numpy.asarray([t for p in pages for t in targets(p)], dtype=numpy.float64)
    names = pages[0]["names"]
    data = lightgbm.Dataset(x, y, feature_name=names, categorical_feature=["kind"])
    return lightgbm.train(PARAMS, data, num_boost_round=ROUNDS)


def best_reading(page: dict[str, Any]) -> str:
    """The reading that scores best on ``page`` (the ceiling of any chooser)."""
    from spyglass.extract.readings import KINDS

    scores = page["scores"]
    return str(max(KINDS, key=lambda kind: float(scores[kind]["f1"])))


def pick(booster: Any, page: dict[str, Any]) -> str:
    import numpy

    from spyglass.extract.readings import KINDS

    if page["rows"] is None:
        return KINDS[0]
    predicted = booster.predict(numpy.asarray(page["rows"], dtype=numpy.float64), num_threads=1)
    order = sorted(range(len(KINDS)), key=lambda i: (-predicted[i], i))
    for index in order:
        if page["texts"][KINDS[index]]:
            return KINDS[index]
    return KINDS[order[0]]


def figures(scored: Iterable[tuple[dict[str, Any], dict[str, float]]]) -> dict[str, Any]:
    """WCXB F1 per type, length ratio, `without` rate and trafilatura-eval snippet P/R/F1.

    ``scored`` pairs each page (its ``corpus`` and ``type``) with the score of what was
    chosen for it.
    """
    by_type: dict[str, list[float]] = defaultdict(list)
    ratios: list[float] = []
    without_rates: list[float] = []
    counts = {"tp": 0.0, "fn": 0.0, "fp": 0.0, "tn": 0.0}
    shingled: dict[str, list[tuple[float, float, float]]] = defaultdict(list)
    longer: dict[str, int] = defaultdict(int)
    for page, score in scored:
        if page["corpus"] == "wcxb":
            by_type["overall"].append(score["f1"])
            by_type[page["type"]].append(score["f1"])
            ratios.append(score["length_ratio"])
            # Scores cached before the shingle counts existed have none.
            if "shingle_tp" in score:
                shingles = (score["shingle_tp"], score["shingle_fp"], score["shingle_fn"])
                for group in ("overall", page["type"]):
                    shingled[group].append(shingles)
                    longer[group] += score["length_ratio"] > LONGER
            if score["fp"] + score["tn"]:
                without_rates.append(score["fp"] / (score["fp"] + score["tn"]))
        else:
            for key in counts:
                counts[key] += score[key]
    precision = counts["tp"] / max(counts["tp"] + counts["fp"], 1)
    recall = counts["tp"] / max(counts["tp"] + counts["fn"], 1)
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {
        "wcxb": {group: statistics.fmean(values) for group, values in by_type.items() if values},
        "length_ratio": statistics.median(ratios),
        "without": statistics.fmean(without_rates),
        "trafilatura_eval": {"precision": precision, "recall": recall, "f1": f1},
        "shingles": {
            group: {**shingle_figures(values), "longer_than_1_5": longer[group]}
            for group, values in shingled.items()
        },
    }


def report(title: str, pages: list[dict[str, Any]], chosen: list[str]) -> dict[str, Any]:
    """Print and return WCXB F1 per type and trafilatura-eval snippet P/R/F1 for a choice."""
    result = figures((page, page["scores"][kind]) for page, kind in zip(pages, chosen, strict=True))
    wcxb, traf = result["wcxb"], result["trafilatura_eval"]
    order = ["overall", *sorted(g for g in wcxb if g != "overall")]
    cells = " ".join(f"{g[:5]} {wcxb[g]:.3f}" for g in order)
    print(
        f"{title:<22} WCXB {cells} | len x{result['length_ratio']:.2f} "
        f"w/out {result['without']:.3f} | "
        f"traf-eval P {traf['precision']:.3f} R {traf['recall']:.3f} F1 {traf['f1']:.3f}"
    )
    return result


def cross_validate(
    pages: list[dict[str, Any]],
    truths: list[Truth],
    per_page: list[PageBlocks],
    filter_all: bool = False,
    keep_rules: bool = False,
) -> None:
    """Held-out figures of both ways to decide, every page handled by models trained on the
    folds its site is not in: choose a reading then filter it, and filter every reading then
    choose among the filtered ones (the chooser also sees what the block model made of each
    reading; its training pages are filtered by block models that never saw their site)."""
    fold_of = folds(pages)
    _, models = out_of_fold(per_page, fold_of, block_names(pages), pages)
    chosen = [""] * len(pages)
    measured = sorted({*THRESHOLDS, *(KEEP_GRID if keep_rules else [])})
    then_filtered: dict[float, list[dict[str, Any]]] = {t: [{}] * len(pages) for t in measured}
    for fold in range(FOLDS):
        chooser = fit([pages[i] for i, f in enumerate(fold_of) if f != fold])
        for index, page in enumerate(pages):
            if fold_of[index] == fold:
                chosen[index] = pick(chooser, page)
                texts = filtered(one_pass(models[fold]), page, chosen[index], measured)
                for threshold, text in zip(measured, texts, strict=True):
                    then_filtered[threshold][index] = truths[index].page.score(text)
    if keep_rules:
        from bench.keep_rules import save_grid

        save_grid(KEEP_CACHE, pages, fold_of, chosen, then_filtered)
    report("chooser (held out)", pages, chosen)
    for threshold in THRESHOLDS:
        scored = [
            {**p, "scores": {"x": o}} for p, o in zip(pages, then_filtered[threshold], strict=True)
        ]
        report(f"+ blocks < {threshold} out", scored, ["x"] * len(pages))
    if not filter_all:
        return

    for threshold in THRESHOLDS:
        started = time.perf_counter()
        seen = filtered_pages(pages, truths, fold_of, models, threshold)
        picks = [""] * len(pages)
        for fold in range(FOLDS):
            chooser = fit([seen[i] for i, f in enumerate(fold_of) if f != fold])
            for index, page in enumerate(seen):
                if fold_of[index] == fold:
                    picks[index] = pick(chooser, page)
        best = [best_reading(p) for p in seen]
        report(f"filter all < {threshold}, best", seen, best)
        report(f"filter all < {threshold}, choose", seen, picks)
        print(f"  ({time.perf_counter() - started:.0f} s)", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--jobs", type=int, default=2, help="worker processes for reading")
    parser.add_argument("--rebuild", action="store_true", help="re-read pages, ignore cache")
    parser.add_argument("--no-write", action="store_true", help="report only, keep the models")
    parser.add_argument("--no-cv", action="store_true", help="only train and write the models")
    parser.add_argument(
        "--filter-all",
        action="store_true",
        help="also measure filtering every reading and choosing among the filtered ones",
    )
    parser.add_argument(
        "--keep-rules",
        action="store_true",
        help="also measure keep thresholds that depend on the page (bench/keep_rules.py)",
    )
    parser.add_argument(
        "--precision-floor",
        type=float,
        help="with --keep-rules: choose the thresholds keeping trafilatura-eval precision "
        "at least this (bench/keep_rules.py)",
    )
    options = parser.parse_args()
    pages = collect(options.jobs, options.rebuild)
    truths = [Truth(load_truth(p["corpus"], p["id"])) for p in pages]

    print(f"{len(pages)} pages; five folds grouped by site, held-out figures:")
    report("always article", pages, ["article"] * len(pages))
    best = [best_reading(p) for p in pages]
    report("best per page (ceiling)", pages, best)
    per_page = block_data(pages, truths, options.rebuild)
    if not options.no_write:
        MODEL.write_text(fit(pages).model_to_string(), encoding="utf-8")
        everything = readings_of(per_page, list(range(len(pages))), pages)
        blocks = fit_blocks(everything, block_names(pages))
        BLOCK_MODEL.write_text(blocks.model_to_string(), encoding="utf-8")
        for path in (MODEL, BLOCK_MODEL):
            print(f"wrote {path.relative_to(ROOT)} ({path.stat().st_size:,} bytes)")
    if not options.no_cv:
        cross_validate(pages, truths, per_page, options.filter_all, options.keep_rules)
    if options.keep_rules:
        from bench.keep_rules import measure, write

        measure(KEEP_CACHE, options.precision_floor)
        if not options.no_write:
            write(KEEP_CACHE, options.precision_floor)
    return 0


if __name__ == "__main__":
    sys.exit(main())
