"""Train the extraction models, report their held-out figures, ship them (bench/TRAINING.md).

    PYTHONPATH=src python -m bench.train_extraction [--jobs 2] [--rebuild] [--no-write]

Reads every page through :func:`spyglass.extract.html.readings` (cached in ``bench/results/``;
``--rebuild`` reads them again), scores five folds grouped by site held out, then trains on
all pages and writes ``chooser.txt``, ``blocks.txt`` and ``keep.json`` to
``src/spyglass/extract/models/`` (not with ``--no-write``); the same data give the same files.
"""

from __future__ import annotations

import argparse
import pickle
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import keep_rules  # noqa: E402
from bench.block_training import (  # noqa: E402
    COMMON_PARAMS,
    PageBlocks,
    Truth,
    block_data,
    block_names,
    chances_of,
    filtered,
    fit_blocks,
    fold_models,
    readings_of,
)
from bench.extraction_data import FOLDS, figures, folds, load, load_truth, page_ids  # noqa: E402

CACHE = ROOT / "bench" / "results" / "extraction-readings.pkl"
MODELS = ROOT / "src" / "spyglass" / "extract" / "models"
MODEL = MODELS / "chooser.txt"
BLOCK_MODEL = MODELS / "blocks.txt"
#: The chooser's settings.
PARAMS: dict[str, Any] = {
    **COMMON_PARAMS,
    "objective": "regression",
    "num_leaves": 15,
    # Split thresholds drawn at random, leaves of at least 40 pages: with exact splits of 20
    # the chooser fitted its pages too closely, and scored lower held out on every one of
    # five seeds (docs/decisions.md).
    "extra_trees": True,
    "min_data_in_leaf": 40,
}
ROUNDS = 300


def peer_output(html: str, url: str) -> str:
    """What the peer, trafilatura with its defaults, extracts from the page."""
    import trafilatura

    try:
        return trafilatura.extract(html, url=url) or ""
    except Exception:  # a peer crashing on a page is a data point, not the end of the run
        return ""


def read_page(item: tuple[str, str]) -> dict[str, Any]:
    import numpy

    from spyglass.extract.blocks import split_blocks
    from spyglass.extract.features import feature_names
    from spyglass.extract.html import readings, with_fallback
    from spyglass.extract.readings import KINDS
    from spyglass.extract.tree import parse

    corpus, page_id = item
    page = load(corpus, page_id)
    peer = page.score(peer_output(page.html, page.url))
    tree = parse(page.html)
    if tree is None:  # nothing to read: extraction returns "" whatever it would choose
        empty = page.score("")
        return {
            "corpus": corpus,
            "id": page_id,
            "type": page.type,
            "domain": page.domain,
            "peer": peer,
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
        "peer": peer,
        "rows": read.rows,
        "names": feature_names(read.page),
        "scores": {kind: page.score(outputs[kind]) for kind in KINDS},
        "texts": outputs,
    }


def collect(jobs: int, rebuild: bool) -> list[dict[str, Any]]:
    """Every page of both corpora as :func:`read_page` reads it, from the cache unless
    ``rebuild``."""
    if CACHE.exists() and not rebuild:
        with CACHE.open("rb") as handle:
            cached: list[dict[str, Any]] = pickle.load(handle)
            return cached
    started = time.perf_counter()
    work = [("wcxb", i) for i in page_ids("wcxb")]
    work += [("trafilatura", i) for i in page_ids("trafilatura")]
    if jobs > 1:
        with ProcessPoolExecutor(jobs) as pool:
            pages = list(pool.map(read_page, work, chunksize=8))
    else:
        pages = [read_page(item) for item in work]
    print(f"  read {len(pages)} pages: {time.perf_counter() - started:.0f} s", flush=True)
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


TYPES = ["article", "service", "product", "collection", "forum", "listing", "documentation"]
HEADER = (
    "| held out, five folds by site | WCXB F1 | "
    + " | ".join(TYPES)
    + " | article shingle F1 | `with` found | `without` found | length / reference"
    " | trafilatura-eval P | R | F1 |"
)


def row(title: str, result: dict[str, Any]) -> str:
    """One line of the Markdown table :data:`HEADER` heads."""
    wcxb, traf = result["wcxb"], result["trafilatura_eval"]
    cells = [
        title,
        *(f"{wcxb[group]:.3f}" for group in ["overall", *TYPES]),
        f"{result['shingles']['article']['shingle_f1']:.3f}",
        f"{result['with']:.3f}",
        f"{result['without']:.3f}",
        f"{result['length_ratio']:.2f}",
        *(f"{traf[key]:.3f}" for key in ("precision", "recall", "f1")),
    ]
    return "| " + " | ".join(cells) + " |"


def chosen_figures(pages: list[dict[str, Any]], chosen: list[str]) -> dict[str, Any]:
    """The figures of ``chosen[i]``, a key of ``pages[i]["scores"]``, on every page."""
    return figures((page, page["scores"][kind]) for page, kind in zip(pages, chosen, strict=True))


def cross_validate(
    pages: list[dict[str, Any]], truths: list[Truth], per_page: list[PageBlocks]
) -> tuple[list[str], list[keep_rules.Record]]:
    """Every page's reading as chosen by a chooser trained on the folds its site is not in,
    and its :data:`~bench.keep_rules.Record`: the chosen reading filtered by that fold's
    block model at every threshold of :data:`~bench.keep_rules.KEEP_GRID`, scored."""
    fold_of = folds(pages)
    models = fold_models(per_page, fold_of, block_names(pages), pages)
    grid = keep_rules.KEEP_GRID
    chosen = [""] * len(pages)
    scores: dict[float, list[dict[str, Any]]] = {t: [{}] * len(pages) for t in grid}
    for fold in range(FOLDS):
        chooser = fit([pages[i] for i, f in enumerate(fold_of) if f != fold])
        for index, page in enumerate(pages):
            if fold_of[index] == fold:
                chosen[index] = pick(chooser, page)
                texts = filtered(chances_of(models[fold]), page, chosen[index], grid)
                for threshold, text in zip(grid, texts, strict=True):
                    scores[threshold][index] = truths[index].page.score(text)
    return chosen, keep_rules.records(pages, fold_of, chosen, scores)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--jobs", type=int, default=2, help="worker processes for reading")
    parser.add_argument("--rebuild", action="store_true", help="read the pages again")
    parser.add_argument("--no-write", action="store_true", help="report only, keep the models")
    options = parser.parse_args()
    started = time.perf_counter()
    pages = collect(options.jobs, options.rebuild)
    truths = [Truth(load_truth(p["corpus"], p["id"])) for p in pages]
    per_page = block_data(pages, truths, options.rebuild)
    wcxb = sum(p["corpus"] == "wcxb" for p in pages)
    print(f"{wcxb} WCXB dev pages, {len(pages) - wcxb} trafilatura-eval pages", flush=True)
    chosen, found = cross_validate(pages, truths, per_page)
    table = [
        ("trafilatura (peer, same run)", figures((p, p["peer"]) for p in pages)),
        ("always the article reading", chosen_figures(pages, ["article"] * len(pages))),
        (
            "best reading per page (ceiling)",
            chosen_figures(pages, [best_reading(p) for p in pages]),
        ),
        ("chooser, no block filter", chosen_figures(pages, chosen)),
        (
            f"+ block filter, {keep_rules.BASELINE} everywhere",
            keep_rules.at(found, [keep_rules.BASELINE] * len(found)),
        ),
        ("+ block filter, keep rule (shipped)", keep_rules.at(found, keep_rules.held_out(found))),
    ]
    print(HEADER)
    print("|" + "---|" * (HEADER.count("|") - 1))
    for title, result in table:
        print(row(title, result))
    if not options.no_write:
        MODEL.write_text(fit(pages).model_to_string(), encoding="utf-8")
        everything = readings_of(per_page, list(range(len(pages))), pages)
        blocks = fit_blocks(everything, block_names(pages))
        BLOCK_MODEL.write_text(blocks.model_to_string(), encoding="utf-8")
        thresholds = keep_rules.write(found)
        for path in (MODEL, BLOCK_MODEL, keep_rules.KEEP_FILE):
            print(f"wrote {path.relative_to(ROOT)} ({path.stat().st_size:,} bytes)")
        print(f"keep thresholds: {thresholds}")
    print(f"{time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
