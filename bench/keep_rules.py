"""The keep thresholds of the block filter, chosen held out and shipped in ``keep.json``: one
threshold per group of :func:`spyglass.extract.thresholds.group` from :data:`KEEP_GRID`, by
coordinate ascent on the training folds (bench/TRAINING.md).
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

from bench.extraction_data import figures

ROOT = Path(__file__).resolve().parent.parent
KEEP_FILE = ROOT / "src" / "spyglass" / "extract" / "models" / "keep.json"
#: Thresholds the rule chooses among.
KEEP_GRID = [round(0.3 + 0.05 * i, 2) for i in range(9)]
#: The single threshold every rule is compared with, and a group no page fell in keeps.
BASELINE = 0.4
#: Thresholds are chosen keeping trafilatura-eval precision at least this (the precision of
#: the release before the rule), so that a change of the readings cannot buy F1 with it.
PRECISION_FLOOR = 0.907
_KEYS = ("tp", "fn", "fp", "tn", "f1", "length_ratio", "shingle_tp", "shingle_fp", "shingle_fn")

#: One page as the keep rule sees it: its corpus, type, fold, the shipped rule's group and
#: its held-out scores at every threshold of the grid.
Record = dict[str, Any]


def records(
    pages: list[dict[str, Any]],
    fold_of: list[int],
    chosen: list[str],
    scores: dict[float, list[dict[str, Any]]],
) -> list[Record]:
    """Every page's :data:`Record`, ``chosen[i]`` the reading chosen for ``pages[i]`` and
    ``scores[t][i]`` its held-out score at threshold ``t``."""
    from spyglass.extract.readings import KINDS
    from spyglass.extract.thresholds import group

    names = next(p["names"] for p in pages if p["rows"] is not None)
    found = []
    for index, page in enumerate(pages):
        kind = chosen[index]
        rows = page["rows"]
        # The runtime groups a page by its features; a page with no tree has none.
        features = {} if rows is None else dict(zip(names, rows[KINDS.index(kind)], strict=True))
        found.append(
            {
                "corpus": page["corpus"],
                "type": page["type"],
                "fold": fold_of[index],
                "group": group(features, kind),
                "scores": {
                    t: {k: scores[t][index][k] for k in _KEYS if k in scores[t][index]}
                    for t in scores
                },
            }
        )
    return found


class Sums:
    """What the combined objective needs, summed over a set of pages at one threshold."""

    __slots__ = ("f1", "fn", "fp", "pages", "tp")

    def __init__(self) -> None:
        self.f1 = self.tp = self.fp = self.fn = 0.0
        self.pages = 0

    def add(self, record: Record, threshold: float) -> None:
        score = record["scores"][threshold]
        if record["corpus"] == "wcxb":
            self.f1 += score["f1"]
            self.pages += 1
        else:
            self.tp += score["tp"]
            self.fp += score["fp"]
            self.fn += score["fn"]


def objective(parts: list[Sums], floor: float | None = None) -> float:
    """Mean of WCXB mean word F1 and trafilatura-eval snippet F1 over ``parts`` together;
    with a ``floor``, trafilatura-eval precision below it costs ten times the shortfall
    (so thresholds are chosen among those that keep the precision, when any does)."""
    pages = sum(p.pages for p in parts)
    tp, fp, fn = (sum(getattr(p, k) for p in parts) for k in ("tp", "fp", "fn"))
    wcxb = sum(p.f1 for p in parts) / pages if pages else 0.0
    snippet = 2 * tp / (2 * tp + fp + fn) if tp + fp + fn else 0.0
    value = (wcxb + snippet) / 2
    if floor is not None and tp + fp:
        value -= 10 * max(0.0, floor - tp / (tp + fp))
    return value


def choose_thresholds(
    found: list[Record], grid: list[float], floor: float | None = PRECISION_FLOOR
) -> dict[str, float]:
    """Each group's threshold, chosen on ``found`` by coordinate ascent on
    :func:`objective` (every group starts at :data:`BASELINE`; a few passes over the groups)."""
    sums: dict[str, dict[float, Sums]] = defaultdict(lambda: {t: Sums() for t in grid})
    for record in found:
        for threshold in grid:
            sums[record["group"]][threshold].add(record, threshold)
    chosen = dict.fromkeys(sorted(sums), BASELINE)
    for _ in range(4):
        changed = False
        for group in chosen:
            others = [sums[g][t] for g, t in chosen.items() if g != group]
            # Ties go to the threshold nearest the current one, so nothing moves for nothing.
            best = max(
                grid,
                key=lambda t: (
                    round(objective([*others, sums[group][t]], floor), 6),
                    -abs(t - chosen[group]),
                ),
            )
            if best != chosen[group]:
                chosen[group], changed = best, True
        if not changed:
            break
    return chosen


def held_out(found: list[Record]) -> list[float]:
    """Each page's threshold as chosen on the other folds."""
    grid = sorted(found[0]["scores"])
    picked = [0.0] * len(found)
    for fold in sorted({r["fold"] for r in found}):
        chosen = choose_thresholds([r for r in found if r["fold"] != fold], grid)
        for index, record in enumerate(found):
            if record["fold"] == fold:
                picked[index] = chosen.get(record["group"], BASELINE)
    return picked


def at(found: list[Record], picked: list[float]) -> dict[str, Any]:
    """The :func:`~bench.extraction_data.figures` of every page read at its picked threshold."""
    return figures(
        (record, record["scores"][threshold])
        for record, threshold in zip(found, picked, strict=True)
    )


def write(found: list[Record]) -> dict[str, float]:
    """Choose the shipped rule's thresholds on every page of both corpora (as each fold did
    on its training pages) and write them to ``models/keep.json``."""
    from spyglass.extract.thresholds import GROUPS

    chosen = choose_thresholds(found, sorted(found[0]["scores"]))
    data = {
        "rule": "declared article x reading (article/not-article x article/region/block)",
        "thresholds": {group: chosen.get(group, BASELINE) for group in GROUPS},
        "made_by": "python -m bench.train_extraction",
    }
    KEEP_FILE.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    return data["thresholds"]  # type: ignore[return-value]
