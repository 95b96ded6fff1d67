"""Keep thresholds that depend on the page, measured held out.

The block filter leaves out the blocks of the chosen reading whose chance of being content
is below one threshold. A higher one buys trafilatura-eval precision with WCXB listings and
forums; this module measures whether a threshold chosen by evidence available on a new page
(the chosen reading, the page's declared type, its ``<article>`` count, its link density,
or a small model from the chooser's row) does better on both corpora.

    .venv/bin/python bench/train_extraction.py --keep-rules   # models, grid, report, keep.json
    .venv/bin/python bench/keep_rules.py [--write] [--precision-floor P]   # from the cache

``train_extraction.py --keep-rules`` scores every page's held-out output (chooser and block
model trained on the folds its site is not in) at every threshold of ``KEEP_GRID`` and
caches them; :func:`measure` then chooses each rule's thresholds on the training folds
only (coordinate ascent on the combined objective, the mean of WCXB word F1 and
trafilatura-eval snippet F1) and applies them to the held-out fold.
"""

from __future__ import annotations

import argparse
import json
import math
import pickle
import sys
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

_KEYS = ("tp", "fn", "fp", "tn", "f1", "length_ratio")
#: The rule ``web.fetch`` uses (:mod:`spyglass.extract.thresholds`); ``--write`` ships them.
SHIPPED = "declared article x reading (article/not-article x article/region/block)"
#: The rule shipped before round twenty-four, which the page-type experiments build on.
DECLARED_TYPE = "declared type (article/other/none)"
#: The single threshold used before, the baseline every rule is compared with.
BASELINE = 0.4
KEEP_FILE = ROOT / "src" / "spyglass" / "fetch" / "models" / "keep.json"


def save_grid(
    path: Path,
    pages: list[dict[str, Any]],
    fold_of: list[int],
    chosen: list[str],
    scores: dict[float, list[dict[str, Any]]],
) -> None:
    """Cache what the keep rules need: per page its corpus, type, fold, chosen reading, the
    chooser's row of that reading and its held-out scores at every threshold."""
    from spyglass.extract.readings import KINDS

    names = next(p["names"] for p in pages if p["rows"] is not None)
    records = []
    for index, page in enumerate(pages):
        kind = chosen[index]
        row = None if page["rows"] is None else list(page["rows"][KINDS.index(kind)])
        records.append(
            {
                "corpus": page["corpus"],
                "type": page["type"],
                "domain": page["domain"],
                "fold": fold_of[index],
                "reading": kind,
                "row": row,
                "scores": {
                    t: {k: scores[t][index][k] for k in _KEYS if k in scores[t][index]}
                    for t in scores
                },
            }
        )
    with path.open("wb") as handle:
        pickle.dump({"names": names, "pages": records}, handle)


#: A rule puts a page in a group from what is known about it at run time; each group gets
#: its own threshold.
Rule = Callable[[dict[str, Any], dict[str, int]], str]


def _feature(record: dict[str, Any], names: dict[str, int], name: str) -> float:
    row = record["row"]
    return float(row[names[name]]) if row is not None else 0.0


def _declared_article(record: dict[str, Any], names: dict[str, int]) -> bool:
    return bool(_feature(record, names, "ld_article") or _feature(record, names, "og_article"))


def _page(record: dict[str, Any], names: dict[str, int]) -> dict[str, float]:
    """The page's features, read back from the chooser's row (none without a row)."""
    row = record["row"]
    return {} if row is None else {name: row[i] for name, i in names.items()}


def _declared(record: dict[str, Any], names: dict[str, int]) -> str:
    """The runtime's own :func:`declared_type` of the page."""
    from spyglass.extract.thresholds import declared_type

    return declared_type(_page(record, names))


def _shipped(record: dict[str, Any], names: dict[str, int]) -> str:
    """The shipped rule's group: the runtime's own :func:`~spyglass.extract.thresholds.group` of the
    page and its chosen reading."""
    from spyglass.extract.thresholds import group

    return group(_page(record, names), record["reading"])


def _articles(record: dict[str, Any], names: dict[str, int]) -> str:
    # Element counts are stored as log(1 + count).
    count = round(math.expm1(_feature(record, names, "articles")))
    return "0" if count == 0 else "1" if count == 1 else "2+"


def _link_density(record: dict[str, Any], names: dict[str, int]) -> str:
    density = _feature(record, names, "page_link_density")
    return "low" if density < 0.15 else "mid" if density < 0.3 else "high"


def _declared_product(record: dict[str, Any], names: dict[str, int]) -> str:
    declared = _declared(record, names)
    if declared == "other" and (
        _feature(record, names, "ld_product") or _feature(record, names, "og_product")
    ):
        return "product"
    return declared


RULES: dict[str, Rule] = {
    "one threshold": lambda r, n: "all",
    "per reading": lambda r, n: r["reading"],
    "declared article (JSON-LD/og:type)": lambda r, n: str(_declared_article(r, n)),
    DECLARED_TYPE: _declared,
    "declared type, products apart (article/product/other/none)": _declared_product,
    "declared type x reading": lambda r, n: f"{_declared(r, n)}/{r['reading']}",
    SHIPPED: _shipped,
    "declared article x reading x page link density": lambda r, n: (
        f"{_shipped(r, n)}/{_link_density(r, n)}"
    ),
    "<article> count (0/1/2+)": _articles,
    "page link density (<0.15/<0.3/more)": _link_density,
    "reading x <article> count": lambda r, n: f"{r['reading']}/{_articles(r, n)}",
    "declared article x link density": lambda r, n: (
        f"{_declared_article(r, n)}/{_link_density(r, n)}"
    ),
}


class Sums:
    """What the combined objective needs, summed over a set of pages at one threshold."""

    __slots__ = ("f1", "fn", "fp", "pages", "tp")

    def __init__(self) -> None:
        self.f1 = self.tp = self.fp = self.fn = 0.0
        self.pages = 0

    def add(self, record: dict[str, Any], threshold: float) -> None:
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
    records: list[dict[str, Any]],
    groups: list[str],
    grid: list[float],
    start: float = 0.4,
    floor: float | None = None,
) -> dict[str, float]:
    """Each group's threshold, chosen on ``records`` by coordinate ascent on
    :func:`objective` (every group starts at ``start``; a few passes over the groups)."""
    sums: dict[str, dict[float, Sums]] = defaultdict(lambda: {t: Sums() for t in grid})
    for record, group in zip(records, groups, strict=True):
        for threshold in grid:
            sums[group][threshold].add(record, threshold)
    chosen = dict.fromkeys(sorted(sums), start)
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


def summarise(records: list[dict[str, Any]], picked: list[float]) -> dict[str, Any]:
    """The figures of every page read at its picked threshold (``row_of``'s keys)."""
    from bench.train_extraction import figures

    result = figures(
        (record, record["scores"][threshold])
        for record, threshold in zip(records, picked, strict=True)
    )
    traf = result.pop("trafilatura_eval")
    return {**result, "p": traf["precision"], "r": traf["recall"], "f1": traf["f1"]}


TYPES = ["article", "service", "product", "collection", "forum", "listing", "documentation"]


def row_of(title: str, figures: dict[str, Any]) -> str:
    wcxb = figures["wcxb"]
    cells = [
        title,
        f"{wcxb['overall']:.3f}",
        *(f"{wcxb[t]:.3f}" for t in TYPES),
        f"{figures['length_ratio']:.2f}",
        f"{figures['without']:.3f}",
        f"{figures['p']:.3f}",
        f"{figures['r']:.3f}",
        f"{figures['f1']:.3f}",
        f"{(wcxb['overall'] + figures['f1']) / 2:.4f}",
    ]
    return "| " + " | ".join(cells) + " |"


def held_out(
    records: list[dict[str, Any]],
    groups: list[str],
    grid: list[float],
    floor: float | None = None,
) -> tuple[list[float], list[dict[str, float]]]:
    """Each page's threshold as chosen on the other folds, and each fold's choice."""
    picked = [0.0] * len(records)
    per_fold = []
    for fold in sorted({r["fold"] for r in records}):
        train = [i for i, r in enumerate(records) if r["fold"] != fold]
        chosen = choose_thresholds(
            [records[i] for i in train], [groups[i] for i in train], grid, floor=floor
        )
        per_fold.append(chosen)
        for index, record in enumerate(records):
            if record["fold"] == fold:
                # A group no training page fell in keeps the shipped threshold.
                picked[index] = chosen.get(groups[index], 0.4)
    return picked, per_fold


LEARNED_PARAMS: dict[str, Any] = {
    "objective": "regression",
    "learning_rate": 0.05,
    "num_leaves": 7,
    "min_data_in_leaf": 100,
    "feature_fraction": 0.8,
    "lambda_l2": 1.0,
    "seed": 20261130,
    "deterministic": True,
    "force_col_wise": True,
    "num_threads": 1,
    "verbose": -1,
}
LEARNED_ROUNDS = 100


def learned_thresholds(records: list[dict[str, Any]], grid: list[float]) -> list[float]:
    """Each page's threshold as a small model trained on the other folds predicts best: it
    learns each threshold's page score (minus the page's mean over the grid) from the
    chooser's row of the chosen reading and the threshold; trafilatura-eval pages weigh
    as much in total as WCXB pages, as in the objective."""
    import lightgbm
    import numpy

    wcxb = sum(r["corpus"] == "wcxb" for r in records)
    other = len(records) - wcxb
    picked = [0.4] * len(records)
    for fold in sorted({r["fold"] for r in records}):
        x, y, w = [], [], []
        for record in records:
            if record["fold"] == fold or record["row"] is None:
                continue
            values = [record["scores"][t]["f1"] for t in grid]
            centre = sum(values) / len(values)
            weight = 1.0 if record["corpus"] == "wcxb" else wcxb / max(other, 1)
            for threshold, value in zip(grid, values, strict=True):
                x.append([*record["row"], threshold])
                y.append(value - centre)
                w.append(weight)
        data = lightgbm.Dataset(
            numpy.asarray(x, dtype=numpy.float64), numpy.asarray(y), weight=numpy.asarray(w)
        )
        model = lightgbm.train(LEARNED_PARAMS, data, num_boost_round=LEARNED_ROUNDS)
        for index, record in enumerate(records):
            if record["fold"] != fold or record["row"] is None:
                continue
            rows = numpy.asarray([[*record["row"], t] for t in grid], dtype=numpy.float64)
            predicted = model.predict(rows, num_threads=1)
            picked[index] = grid[int(numpy.argmax(predicted))]
    return picked


def _per_fold(records: list[dict[str, Any]], picked: list[float]) -> str:
    """The objective's change per held-out fold, to see whether a gain is everywhere."""
    changes = []
    for fold in sorted({r["fold"] for r in records}):
        mine, shipped = Sums(), Sums()
        for record, threshold in zip(records, picked, strict=True):
            if record["fold"] == fold:
                mine.add(record, threshold)
                shipped.add(record, BASELINE)
        changes.append(objective([mine]) - objective([shipped]))
    return " ".join(f"{c:+.4f}" for c in changes)


def measure(path: Path, floor: float | None = None) -> dict[str, dict[str, Any]]:
    """Print the held-out table of every rule beside the shipped single threshold (each
    fold's thresholds chosen keeping trafilatura-eval precision at ``floor``, if given)."""
    with path.open("rb") as handle:
        cached = pickle.load(handle)
    names = {name: i for i, name in enumerate(cached["names"])}
    records: list[dict[str, Any]] = cached["pages"]
    grid = sorted(records[0]["scores"])
    header = (
        "| keep rule (held out) | WCXB F1 | " + " | ".join(TYPES) + " | length ratio | "
        "`without` found | trafilatura-eval P | R | F1 | objective |"
    )
    print(header)
    print("|" + "---|" * (header.count("|") - 1))
    results = {}
    shipped = summarise(records, [BASELINE] * len(records))
    print(row_of(f"before: {BASELINE} everywhere", shipped))
    results["shipped"] = shipped
    for title, rule in RULES.items():
        groups = [rule(r, names) for r in records]
        picked, per_fold = held_out(records, groups, grid, floor)
        figures = summarise(records, picked)
        results[title] = figures
        print(row_of(title, figures))
        print("    objective per fold against 0.4 everywhere: " + _per_fold(records, picked))
        for fold, chosen in enumerate(per_fold):
            print(f"    fold {fold + 1}: " + ", ".join(f"{g} {t}" for g, t in chosen.items()))
    picked = learned_thresholds(records, grid)
    results["learned"] = summarise(records, picked)
    print(row_of("learned threshold per page (LightGBM, chooser row)", results["learned"]))
    print("    objective per fold against 0.4 everywhere: " + _per_fold(records, picked))
    return results


def write(path: Path, floor: float | None = None) -> None:
    """Choose the shipped rule's thresholds on every page of both corpora (as each fold did
    on its training pages) and write them to ``models/keep.json``."""
    from spyglass.extract.thresholds import GROUPS

    with path.open("rb") as handle:
        cached = pickle.load(handle)
    names = {name: i for i, name in enumerate(cached["names"])}
    records: list[dict[str, Any]] = cached["pages"]
    grid = sorted(records[0]["scores"])
    groups = [RULES[SHIPPED](r, names) for r in records]
    chosen = choose_thresholds(records, groups, grid, floor=floor)
    data = {
        "rule": SHIPPED,
        "thresholds": {group: chosen.get(group, BASELINE) for group in GROUPS},
        "made_by": "bench/keep_rules.py --write"
        + (f" --precision-floor {floor}" if floor is not None else ""),
    }
    KEEP_FILE.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {KEEP_FILE.relative_to(ROOT)}: {data['thresholds']}")


def main() -> int:
    from bench.train_extraction import KEEP_CACHE

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--write", action="store_true", help=f"also write {KEEP_FILE.relative_to(ROOT)}"
    )
    parser.add_argument(
        "--precision-floor",
        type=float,
        help="choose thresholds keeping trafilatura-eval precision at least this (the "
        "precision of the release before, so a change of the readings cannot buy F1 with it)",
    )
    options = parser.parse_args()
    measure(KEEP_CACHE, options.precision_floor)
    if options.write:
        write(KEEP_CACHE, options.precision_floor)
    return 0


if __name__ == "__main__":
    sys.exit(main())
