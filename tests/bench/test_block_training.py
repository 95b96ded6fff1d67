"""The block model's training sample is drawn by what each block is, not where it sits."""

from __future__ import annotations

import numpy
from bench.block_training import sampled


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
