"""The block model's training: its sample drawn by what each block is, not where it sits;
each corpus weighing the same; blocks labelled by the references."""

from __future__ import annotations

import math

import numpy
import pytest
from bench.block_training import Truth, balanced, sampled

from tests.bench.corpus_pages import page


def rows(count: int, start: int = 0) -> numpy.ndarray:
    values = numpy.arange(start, start + count, dtype=numpy.float32)
    return numpy.stack([values, values * 0.5], axis=1)


def kept(blocks: numpy.ndarray, size: int) -> set[tuple[float, ...]]:
    return {tuple(row) for row in blocks[sampled(blocks, size)]}


def test_a_block_is_in_the_sample_whatever_the_blocks_before_it_are() -> None:
    blocks = rows(3000)
    # The first page read differently: its two blocks are two others now.
    changed = numpy.vstack([rows(2, start=-10), blocks[2:]])
    unchanged = {tuple(row) for row in blocks[2:]}
    assert kept(blocks, 1000) & unchanged == kept(changed, 1000) & unchanged


def test_a_few_blocks_more_move_only_a_few_others_in_or_out() -> None:
    blocks = rows(3000)
    grown = numpy.vstack([rows(3, start=-10), blocks])
    assert len(kept(blocks, 1000) ^ (kept(grown, 1000) - kept(rows(3, start=-10), 1000))) < 10


def test_the_sample_keeps_about_the_size_asked_for() -> None:
    assert 9_000 < int(sampled(rows(30_000), 10_000).sum()) < 11_000


def test_every_block_is_kept_when_there_are_no_more_than_asked_for() -> None:
    assert bool(sampled(rows(500), 1000).all())


def test_a_salt_draws_another_sample_of_the_same_size() -> None:
    blocks = rows(30_000)
    plain, salted = sampled(blocks, 10_000), sampled(blocks, 10_000, b"bag 1")
    assert 9_000 < int(salted.sum()) < 11_000
    # Independent draws share about a third of a third of the rows, not all of them.
    assert 0.05 < float((plain & salted).mean()) < 0.17
    assert (sampled(blocks, 10_000, b"") == plain).all()


def example(labels: list[float], weights: list[float]) -> tuple[object, object, object]:
    return numpy.zeros((len(labels), 2)), numpy.asarray(labels), numpy.asarray(weights)


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


def test_a_corpus_without_labelled_blocks_keeps_its_weights() -> None:
    weighed = balanced([example([1.0], [2.0]), example([math.nan], [3.0])], ["wcxb", "trafilatura"])
    assert list(weighed[1][2]) == [3.0]


def test_a_wcxb_block_is_content_when_half_its_word_triples_are_in_the_reference() -> None:
    truth = Truth(page("wcxb", reference="The river rose three metres overnight."))
    assert truth.label("**The river** rose three metres") == 1.0
    assert truth.label("Subscribe to our newsletter today") == 0.0


def test_a_wcxb_block_of_fewer_than_three_words_is_content_when_the_reference_holds_it() -> None:
    truth = Truth(page("wcxb", reference="The river rose three metres overnight."))
    assert truth.label("river rose") == 1.0
    assert truth.label("rose river") == 0.0
    assert truth.label("---") is None


def test_a_trafilatura_eval_block_is_labelled_only_by_the_snippets_it_holds() -> None:
    truth = Truth(page("trafilatura", with_=["the river rose"], without=["subscribe to our"]))
    assert truth.label("Then the river rose again.") == 1.0
    assert truth.label("Subscribe to our newsletter.") == 0.0
    assert truth.label("A line no snippet names.") is None
