"""A peer's text becomes three columns per block of a reading."""

from __future__ import annotations

import math

import pytest
from bench.peer_columns import COLUMNS, columns, triples

READING = (
    "The river rose three feet overnight after the storm.\n\n"
    "[Share](https://example.com/share) [Print](https://example.com/print)\n\n"
    "Residents on the east bank were told to move their cars."
)
PEER = (
    "The river rose three feet overnight after the storm.\n"
    "Residents on the east bank were told to leave."
)


def test_a_block_key_is_cut_into_runs_of_three_words() -> None:
    assert triples(b"a b c d") == {b"a b c", b"b c d"}


def test_a_key_shorter_than_three_words_is_its_own_run_and_an_empty_one_has_none() -> None:
    assert triples(b"a b") == {b"a b"}
    assert triples(b"") == set()


def test_each_block_gets_the_share_of_its_triples_in_the_peer_and_whether_it_is_a_line() -> None:
    rows = columns(READING, PEER)
    assert len(rows) == 3 and all(len(row) == len(COLUMNS) for row in rows)
    first, share_bar, last = rows
    assert first[:2] == [1.0, 1.0]
    assert share_bar[:2] == [0.0, 0.0]
    # "residents on the east bank were told to" is shared, "to move their cars" is not.
    assert 0.0 < last[0] < 1.0 and last[1] == 0.0


def test_the_peer_s_length_against_the_reading_is_the_same_on_every_block() -> None:
    rows = columns(READING, PEER)
    assert len({row[2] for row in rows}) == 1
    assert rows[0][2] < 0  # the peer left the share bar and a few words out


def test_an_empty_peer_finds_nothing_anywhere() -> None:
    rows = columns(READING, "")
    assert [row[:2] for row in rows] == [[0.0, 0.0]] * 3
    # 9 + 2 + 11 words in the reading (link targets are not words), none in the peer.
    assert rows[0][2] == pytest.approx(math.log(1 / 23))
