"""The chooser's training: it learns the ranking within a page and picks a reading that
has text."""

from __future__ import annotations

import numpy
from bench.train_extraction import pick, targets


def scored(*f1: float) -> dict[str, object]:
    kinds = ("article", "region", "block")
    return {
        "scores": {kind: {"f1": value} for kind, value in zip(kinds, f1, strict=True)},
        "rows": [[0.0], [0.0], [0.0]],
        "texts": dict.fromkeys(kinds, "text"),
    }


def test_targets_are_each_reading_s_score_minus_the_page_mean() -> None:
    assert targets(scored(0.9, 0.6, 0.3)) == [
        0.9 - 0.6,
        0.0,
        0.3 - 0.6,
    ]


class Preferring:
    """A chooser that scores the readings as given."""

    def __init__(self, *values: float) -> None:
        self.values = values

    def predict(self, rows: object, num_threads: int) -> numpy.ndarray:
        return numpy.asarray(self.values)


def test_the_reading_scored_highest_is_picked() -> None:
    assert pick(Preferring(0.1, 0.5, 0.2), scored(0, 0, 0)) == "region"


def test_an_empty_reading_is_passed_over_for_the_next_best() -> None:
    page = scored(0, 0, 0)
    page["texts"] = {"article": "text", "region": "", "block": "text"}
    assert pick(Preferring(0.1, 0.5, 0.2), page) == "block"


def test_a_page_without_a_tree_gets_the_article_reading() -> None:
    page = scored(0, 0, 0)
    page["rows"] = None
    assert pick(Preferring(0.1, 0.5, 0.2), page) == "article"
