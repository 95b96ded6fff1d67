"""The two learned models of extraction, read once per process from the package.

Both are LightGBM gradient-boosted trees trained by ``bench/train_extraction.py`` on WCXB
dev and trafilatura-eval and shipped as text files in ``spyglass/extract/models``:

- ``chooser.txt`` predicts, for each candidate reading of a page, how well it would score
  against a human reference, from what the page and the candidates look like;
- ``blocks.txt`` gives each block of the chosen reading its chance of being content rather
  than the boxes around it (related stories, newsletter, share bar, author bio), from the
  block's shape, its place in the page's markup and the chooser's row of its reading.
"""

from __future__ import annotations

import threading
from importlib import resources
from typing import Any

CHOOSER = "chooser.txt"
BLOCKS = "blocks.txt"
_LOCK = threading.Lock()
_LOADED: dict[str, Any] = {}


def _booster(name: str) -> Any:
    # Fetches run in threads; the lock keeps two of them from parsing the file at once.
    with _LOCK:
        if name not in _LOADED:
            import lightgbm

            _LOADED[name] = lightgbm.Booster(model_str=model_text(name))
        return _LOADED[name]


def model_text(name: str) -> str:
    """The shipped file ``name`` of ``spyglass/extract/models``."""
    return resources.files("spyglass.extract.models").joinpath(name).read_text("utf-8")


def predict(name: str, rows: list[list[float]]) -> list[float]:
    """The model ``name``'s output for each feature row (none for no rows)."""
    if not rows:
        return []
    import numpy

    values = _booster(name).predict(numpy.asarray(rows, dtype=numpy.float64), num_threads=1)
    return [float(v) for v in values]


def choose(rows: list[list[float]]) -> int:
    """Index of the candidate row with the highest expected score (the first on ties)."""
    scores = predict(CHOOSER, rows)
    return max(range(len(scores)), key=lambda i: (scores[i], -i))


def content_chances(rows: list[list[float]]) -> list[float]:
    """Each block row's chance of being content."""
    return predict(BLOCKS, rows)
