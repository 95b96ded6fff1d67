"""The round-seven chooser measurements label readings and blocks as their docs say."""

from __future__ import annotations

import pytest
from bench.chooser_variants import Soft, fit_chooser, labels_of

from bench import train_extraction as training
from tests.bench.corpus_pages import page


def test_regression_labels_are_each_reading_minus_the_page_mean() -> None:
    assert labels_of([0.2, 0.8, 0.5]) == pytest.approx([-0.3, 0.3, 0.0])


def test_rank_labels_count_the_readings_each_one_beats_and_ties_share_a_label() -> None:
    assert labels_of([0.2, 0.9, 0.5], "order") == [0.0, 2.0, 1.0]
    assert labels_of([0.7, 0.7, 0.1], "order") == [1.0, 1.0, 0.0]


def test_twentieths_labels_are_whole_and_never_negative() -> None:
    assert labels_of([0.0, 0.52, 1.0, -0.1], "twentieths") == [0.0, 10.0, 20.0, 0.0]


def test_soft_labels_on_wcxb_are_the_share_of_the_blocks_trigrams_in_the_reference() -> None:
    truth = Soft(page("wcxb", reference="the tide comes in at noon today"))
    # Trigrams: "the tide comes", "tide comes in" found; "comes in late", "in late tonight" not.
    assert truth.label("The tide comes in late tonight") == 0.5
    assert truth.label("the tide comes in at noon") == 1.0


def test_soft_labels_leave_trafilatura_eval_blocks_as_the_snippets_say() -> None:
    truth = Soft(page("trafilatura", with_=["high tide at noon"], without=["subscribe now"]))
    assert truth.label("High tide at noon, said the harbour master.") == 1.0
    assert truth.label("Subscribe now for more") == 0.0
    assert truth.label("Nothing either snippet names") is None


def test_chooser_settings_given_are_laid_over_the_shipped_ones_and_rounds_sets_the_trees() -> None:
    names = ["kind", "length"]
    pages = [
        {"rows": [[0.0, float(i)], [1.0, float(i % 7)], [2.0, 3.0]], "names": names}
        for i in range(60)
    ]
    chooser = fit_chooser(
        pages,
        list(range(60)),
        lambda i: [i / 60, (i % 7) / 7, 0.5],
        {"rounds": 7, "min_data_in_leaf": 5},
    )
    assert chooser.num_trees() == 7
    assert chooser.params["min_data_in_leaf"] == 5
    # What is not given stays as shipped.
    assert chooser.params["extra_trees"] is training.PARAMS["extra_trees"]
    assert chooser.params["num_leaves"] == training.PARAMS["num_leaves"]
