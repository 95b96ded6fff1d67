"""Held-out figures when the models learn from a share of the training sites: whether the
gap to the issue's 0.88 is one of data (issue #12, round twenty-nine).

    .venv/bin/python bench/learning_curve.py --shares 0.25,0.5,0.75,1 --salts a,b  # ~2 min a row

Each fold's chooser and block model are trained as shipped, but only on the pages of the
training folds whose site falls in the share (a site is in or out whole, by a hash of its
domain and the salt; another salt draws other sites); every page is then decided by its
fold's models, and the shipped keep rule chooses its thresholds per fold as in
``bench/page_types.py``. If the figures still rose steeply at the full share, more labelled
sites would be the way on; if they flatten, the models have learned what their features
say. Reads the caches ``bench/train_extraction.py --rebuild`` writes.
"""

from __future__ import annotations

import argparse
import sys
import time
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import block_headroom, block_training, extraction_data  # noqa: E402
from bench import chooser_variants as variants  # noqa: E402
from bench import train_extraction as training  # noqa: E402

#: A site is in a share when its hash, modulo this, is under the share times it.
BUCKETS = 1000


def in_share(pages: list[dict[str, Any]], share: float, salt: str) -> Callable[[int], bool]:
    """Whether page ``i`` is among the sites a ``share`` (0–1) of them keeps, drawn by
    ``salt``: every page of a site, or none."""
    cut = round(share * BUCKETS)

    def admitted(index: int) -> bool:
        site = (salt + str(pages[index]["domain"])).encode()
        return zlib.crc32(site) % BUCKETS < cut

    return admitted


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--shares", default="0.25,0.5,0.75,1", help="shares of training sites")
    parser.add_argument("--salts", default="a", help="one draw of sites per salt")
    options = parser.parse_args()
    shares = [float(s) for s in options.shares.split(",")]
    if any(not 0 < share <= 1 for share in shares):
        parser.error("each share must be above 0 and at most 1")
    from bench.page_types import shipped_chooser

    started = time.perf_counter()
    pages = training.collect(1, False)
    fold_of = extraction_data.folds(pages)
    truths = block_training.truths(pages)
    per_page = block_training.block_data(pages, truths, False)
    names = block_training.block_names(pages)
    table = variants.Table()
    for salt in options.salts.split(","):
        for share in shares:
            admitted = in_share(pages, share, salt)
            chosen = variants.held_out_choice(pages, fold_of, shipped_chooser(pages, admitted))
            models = variants.block_models(per_page, fold_of, names, pages, include=admitted)
            grid = block_headroom.held_out(pages, truths, fold_of, chosen, per_page, names, models)
            sites = len({p["domain"] for i, p in enumerate(pages) if admitted(i)})
            title = f"{share:g} of the sites ({sites}), salt {salt}"
            table.row(title, *variants.keep_held_out(pages, fold_of, chosen, grid))
    print(f"({time.perf_counter() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
