"""The losses of the choice are counted page by page in the bands their docs name."""

from __future__ import annotations

from typing import Any

import pytest

from bench import choice_losses


def test_tails_count_pages_by_chosen_score_and_by_what_the_choice_lost(
    capsys: pytest.CaptureFixture[str],
) -> None:
    def scores(article: float, region: float, block: float) -> dict[str, Any]:
        return {
            kind: {0.4: {"f1": f1}}
            for kind, f1 in (("article", article), ("region", region), ("block", block))
        }

    pages = [{"corpus": "wcxb"}, {"corpus": "wcxb"}, {"corpus": "trafilatura"}]
    grid = [scores(0.05, 0.95, 0.5), scores(1.0, 0.2, 0.2), scores(0.0, 0.0, 0.0)]
    at = [dict.fromkeys(("article", "region", "block"), 0.4)] * 3
    choice_losses.tails(pages, ["article", "article", "region"], grid, at)
    out = capsys.readouterr().out
    assert "mean 0.5250; best reading 0.9750" in out
    # One page chose 0.05 where 0.95 was there: it loses 0.475 of the mean of two pages.
    assert "F1 0.0-0.1:     1 pages, 0.4750 of the mean lost" in out
    assert "F1 0.9-1.0:     1 pages, 0.0000 of the mean lost" in out
    assert "lost 0.50-1.00:     1 pages, 0.4500 of the mean" in out
    assert "lost 0.00-0.03:     1 pages, 0.0000 of the mean" in out
