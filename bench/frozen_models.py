"""A change to the readings measured with the models held still (issue #12, round eighteen).

    .venv/bin/python bench/frozen_models.py OTHER_READINGS [--seeds 20261130,7,99,1234,42]

Retraining after a reading change moves every page's output, not only the changed pages':
the block model and the chooser learn from every page, so the held-out figures of a
retrained run mix what the change does with what a slightly different training set does
(round eighteen: pages whose readings were byte-identical moved by up to ±0.15 F1). This
keeps the models of this tree's caches and swaps in the readings of another tree
(``OTHER_READINGS``: the ``bench/results/extraction-readings.pkl`` its
``bench/train_extraction.py --rebuild`` wrote, the same pages in the same order): the
block model of each fold and the chooser of each fold and seed are trained on this tree's
readings, exactly as ``bench/page_types.py --variants shipped`` trains them, and decide
both; only pages whose readings differ can score differently. The keep thresholds are
chosen per fold on the other folds for each, as shipped.
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

from bench import block_training, extraction_data  # noqa: E402
from bench import chooser_variants as variants  # noqa: E402
from bench import train_extraction as training  # noqa: E402
from bench.page_types import chooser_targets, filtered_grid  # noqa: E402
from spyglass.extract.readings import KINDS  # noqa: E402


def changed_pages(pages: list[dict[str, Any]], other: list[dict[str, Any]]) -> list[int]:
    """The indices of the pages whose readings differ (the two lists hold the same pages
    in the same order)."""
    if [(p["corpus"], p["id"]) for p in pages] != [(p["corpus"], p["id"]) for p in other]:
        raise SystemExit("the two readings caches do not hold the same pages in the same order")
    return [
        i for i, (a, b) in enumerate(zip(pages, other, strict=True)) if a["texts"] != b["texts"]
    ]


def chooser_fit(pages: list[dict[str, Any]], seed: int) -> Callable[[list[int]], Any]:
    """The shipped chooser trained on the ``train`` pages of ``pages`` with ``seed``, for
    :func:`bench.chooser_variants.held_out_choice`; each fold's is trained once, so the same
    choosers decide this tree's readings and the other's."""
    fitted: dict[tuple[int, ...], Any] = {}

    def fit(train: list[int]) -> Any:
        key = tuple(train)
        if key not in fitted:
            fitted[key] = variants.fit_chooser(
                pages, train, lambda i: chooser_targets(pages[i]), {"seed": seed}
            )
        return fitted[key]

    return fit


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("readings", type=Path, help="the other tree's extraction-readings.pkl")
    parser.add_argument("--seeds", default=",".join(str(s) for s in variants.SEEDS))
    options = parser.parse_args()
    seeds = [int(s) for s in options.seeds.split(",")]
    started = time.perf_counter()
    pages = training.collect(1, False)
    with options.readings.open("rb") as handle:
        other: list[dict[str, Any]] = pickle.load(handle)
    changed = changed_pages(pages, other)
    print(f"{len(changed)} of {len(pages)} pages read differently", flush=True)
    fold_of = extraction_data.folds(pages)
    grid = filtered_grid(pages, fold_of)
    truths = block_training.truths(pages)
    per_page = block_training.block_data(pages, truths, False)
    models = variants.block_models(per_page, fold_of, block_training.block_names(pages), pages)
    changed_grid = variants.filtered_grid(
        [other[i] for i in changed],
        [truths[i] for i in changed],
        models,
        [fold_of[i] for i in changed],
        lambda i: list(KINDS),
    )
    other_grid = list(grid)
    for index, scores in zip(changed, changed_grid, strict=True):
        other_grid[index] = scores
    print(f"filtered ({time.perf_counter() - started:.0f} s)", flush=True)
    table = variants.Table()
    for seed in seeds:
        fit = chooser_fit(pages, seed)
        base = variants.held_out_choice(pages, fold_of, fit)
        table.row(f"this tree, seed {seed}", *variants.keep_held_out(pages, fold_of, base, grid))
        moved = variants.held_out_choice(other, fold_of, fit)
        table.row(
            f"the other readings, seed {seed}",
            *variants.keep_held_out(other, fold_of, moved, other_grid),
        )
    print(f"({time.perf_counter() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
