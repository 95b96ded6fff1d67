"""The benches' scoring: the shingle measure and the figures a run reports."""

from __future__ import annotations

import pytest
from bench.extraction_data import figures, shingle_counts, shingle_figures, shingles


def test_a_text_is_counted_as_every_run_of_four_words_with_case_kept() -> None:
    assert shingles("One two three four five. One two three four") == {
        ("One", "two", "three", "four"): 2,
        ("two", "three", "four", "five"): 1,
        ("three", "four", "five", "One"): 1,
        ("four", "five", "One", "two"): 1,
        ("five", "One", "two", "three"): 1,
    }
    assert ("one", "two", "three", "four") not in shingles("One two three four")


def test_a_text_shorter_than_a_shingle_is_one_shorter_shingle_and_no_text_is_none() -> None:
    assert shingles("just two") == {("just", "two"): 1}
    assert shingles(" ... ") == {}


def test_a_page_counts_as_shares_so_a_long_page_weighs_no_more_than_a_short_one() -> None:
    reference = "a b c d e f"
    # Three shingles of the reference; the prediction adds one of its own and misses one.
    tp, fp, fn = shingle_counts("a b c d e x", reference)
    assert (tp, fp, fn) == pytest.approx((2 / 4, 1 / 4, 1 / 4))
    assert sum(shingle_counts(reference * 50, reference)) == pytest.approx(1.0)
    assert shingle_counts("", "") == (0.0, 0.0, 0.0)


def test_an_empty_output_costs_recall_but_has_no_precision_to_count() -> None:
    found = shingle_figures([(1.0, 0.0, 0.0), (0.0, 0.0, 1.0)])
    # The empty output's page is left out of the precision mean, as the benchmark does.
    assert found["shingle_precision"] == pytest.approx(1.0)
    assert found["shingle_recall"] == pytest.approx(0.5)
    assert found["shingle_f1"] == pytest.approx(2 * 1.0 * 0.5 / 1.5)


def test_the_f1_is_of_the_mean_precision_and_the_mean_recall() -> None:
    found = shingle_figures([(0.5, 0.5, 0.0), (0.5, 0.0, 0.5)])
    assert found["shingle_precision"] == pytest.approx(0.75)
    assert found["shingle_recall"] == pytest.approx(0.75)
    assert found["shingle_f1"] == pytest.approx(0.75)


def wcxb_score(f1: float, tp: int = 1, fn: int = 0, fp: int = 0, tn: int = 1) -> dict[str, float]:
    shingles = {"shingle_tp": 1.0, "shingle_fp": 0.0, "shingle_fn": 0.0}
    return {"f1": f1, "tp": tp, "fn": fn, "fp": fp, "tn": tn, "length_ratio": 1.0, **shingles}


def test_figures_average_wcxb_pages_by_type_and_sum_snippets_over_the_other_corpus() -> None:
    result = figures(
        [
            ({"corpus": "wcxb", "type": "article"}, wcxb_score(1.0)),
            ({"corpus": "wcxb", "type": "forum"}, wcxb_score(0.5, tp=0, fn=1, fp=1, tn=1)),
            ({"corpus": "trafilatura", "type": "news/blog"}, {"tp": 3, "fn": 1, "fp": 1, "tn": 0}),
            ({"corpus": "trafilatura", "type": "news/blog"}, {"tp": 1, "fn": 1, "fp": 0, "tn": 2}),
        ]
    )
    assert result["wcxb"] == {"overall": 0.75, "article": 1.0, "forum": 0.5}
    assert (result["with"], result["without"]) == (0.5, 0.25)
    assert result["trafilatura_eval"]["precision"] == 0.8
    assert result["trafilatura_eval"]["recall"] == 4 / 6
