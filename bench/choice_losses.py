"""Where the held-out WCXB mean is lost to the choice of reading: by page type and by
(chosen, best) pair, and page by page in bands (``bench/page_types.py --losses``; docs/
benchmarks.md, round twenty-two)."""

from __future__ import annotations

import itertools
from collections import defaultdict
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bench.chooser_variants import Grid


def losses(
    pages: list[dict[str, Any]], chosen: list[str], grid: Grid, at: list[dict[str, float]]
) -> None:
    """WCXB F1 the choice loses against the best filtered reading, by type and by (chosen,
    best) pair; ``at`` is each page's keep threshold of each reading."""
    from spyglass.extract.readings import KINDS

    lost: dict[str, dict[tuple[str, str], list[float]]] = defaultdict(lambda: defaultdict(list))
    for index, page in enumerate(pages):
        if page["corpus"] != "wcxb":
            continue
        scores = {k: grid[index][k][at[index][k]]["f1"] for k in KINDS}
        best = max(KINDS, key=lambda k, s=scores: s[k])  # type: ignore[misc]
        lost[page["type"]][(chosen[index], best)].append(scores[best] - scores[chosen[index]])
    print("\nWCXB F1 lost against the best filtered reading (sum over pages, pages):")
    for kind, pairs in sorted(lost.items(), key=lambda kv: -sum(map(sum, kv[1].values()))):
        count = sum(len(v) for v in pairs.values())
        total = sum(sum(v) for v in pairs.values())
        worst = sorted(pairs.items(), key=lambda kv: -sum(kv[1]))[:3]
        parts = ", ".join(f"chose {c} for {b}: {sum(v):.1f} ({len(v)})" for (c, b), v in worst)
        print(f"  {kind} ({count} pages): {total:.1f}, mean {total / count:.3f}; {parts}")
    tails(pages, chosen, grid, at)


#: Bounds of the bands :func:`tails` counts pages in: chosen F1, and F1 lost to the best.
SCORE_BANDS = [0.1 * step for step in range(11)]
GAP_BANDS = [0.0, 0.03, 0.1, 0.3, 0.5, 1.0]


def tails(
    pages: list[dict[str, Any]], chosen: list[str], grid: Grid, at: list[dict[str, float]]
) -> None:
    """How the WCXB mean is lost page by page: pages in bands of their chosen F1 and of the
    F1 the choice lost against the best filtered reading, with each band's share of the
    mean lost (what fixing every page of that band would give)."""
    from spyglass.extract.readings import KINDS

    scored = [
        (
            grid[i][chosen[i]][at[i][chosen[i]]]["f1"],
            max(grid[i][k][at[i][k]]["f1"] for k in KINDS),
        )
        for i, page in enumerate(pages)
        if page["corpus"] == "wcxb"
    ]
    count = len(scored)
    chosen_mean = sum(c for c, _ in scored) / count
    best_mean = sum(b for _, b in scored) / count
    print(f"\nWCXB pages by chosen F1 (mean {chosen_mean:.4f}; best reading {best_mean:.4f}):")
    for low, high in itertools.pairwise(SCORE_BANDS):
        band = [c for c, _ in scored if low <= c < high or (high == 1.0 and c == 1.0)]
        lost = sum(1 - c for c in band) / count
        print(f"  F1 {low:.1f}-{high:.1f}: {len(band):5d} pages, {lost:.4f} of the mean lost")
    print("WCXB pages by F1 lost to the best filtered reading:")
    for low, high in itertools.pairwise(GAP_BANDS):
        band = [b - c for c, b in scored if low < b - c <= high or (low == 0.0 and b == c)]
        share = sum(band) / count
        print(f"  lost {low:.2f}-{high:.2f}: {len(band):5d} pages, {share:.4f} of the mean")
