"""Each training corpus's labelled blocks weigh the same in the block model."""

from __future__ import annotations

import math

import numpy
import pytest
from bench.balance import balanced


def example(labels: list[float], weights: list[float]) -> tuple[object, object, object]:
    rows = numpy.zeros((len(labels), 2))
    return rows, numpy.asarray(labels), numpy.asarray(weights)


def labelled_total(examples: list, corpora: list[str], corpus: str) -> float:
    return sum(
        float(w[~numpy.isnan(y)].sum())
        for (_, y, w), c in zip(examples, corpora, strict=True)
        if c == corpus
    )


def test_a_corpus_with_few_labelled_blocks_is_scaled_up_to_the_heaviest_corpus() -> None:
    corpora = ["wcxb", "wcxb", "trafilatura"]
    examples = [
        example([1.0, 0.0, 1.0], [2.0, 2.0, 2.0]),
        example([0.0, math.nan], [4.0, 9.0]),
        example([math.nan, 0.0, 1.0], [5.0, 1.0, 1.0]),
    ]
    weighed = balanced(examples, corpora)
    # WCXB's labelled rows weigh 10, trafilatura-eval's 2: the latter are scaled by 5, the
    # unlabelled rows along with them, WCXB's left as they were.
    assert labelled_total(weighed, corpora, "trafilatura") == pytest.approx(10.0)
    assert labelled_total(weighed, corpora, "wcxb") == pytest.approx(10.0)
    assert list(weighed[2][2]) == pytest.approx([25.0, 5.0, 5.0])
    assert list(weighed[0][2]) == [2.0, 2.0, 2.0]


def test_features_and_labels_are_handed_back_untouched() -> None:
    examples = [example([1.0], [1.0]), example([0.0], [3.0])]
    weighed = balanced(examples, ["wcxb", "trafilatura"])
    for (rows, labels, _), (before_rows, before_labels, _) in zip(weighed, examples, strict=True):
        assert rows is before_rows
        assert labels is before_labels


def test_a_corpus_without_labelled_blocks_keeps_its_weights() -> None:
    examples = [example([1.0], [2.0]), example([math.nan], [3.0])]
    weighed = balanced(examples, ["wcxb", "trafilatura"])
    assert list(weighed[1][2]) == [3.0]
