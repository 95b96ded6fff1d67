"""Words of a text read in pieces: the same words as the whole text's, found in bounded pieces."""

from __future__ import annotations

import re

import pytest

from spyglass.extract.words import one_spaced, pieces, words

WORD = re.compile(r"\w+")


@pytest.mark.parametrize(
    "text",
    [
        "",
        "one",
        "alpha beta\tgamma\ndelta  epsilon " * 40,
        "x" * 500,
        "Ünïcödé wörds and İstanbul, 北京 and more " * 30,
        "no-break\u00a0spaces\u00a0only\u00a0here " * 25,
    ],
)
def test_pieces_join_back_into_the_text_and_hold_the_same_words(text: str) -> None:
    cut = list(pieces(text, size=16))
    assert "".join(cut) == text
    assert [word for piece in cut for word in WORD.findall(piece)] == WORD.findall(text)


def test_a_long_text_is_cut_into_bounded_pieces_each_ending_after_a_space() -> None:
    text = "word " * 10_000
    cut = list(pieces(text, size=1000))
    assert len(cut) > 40
    assert all(1000 < len(piece) <= 1005 for piece in cut[:-1])
    assert all(piece.endswith(" ") for piece in cut)


def test_a_text_with_no_space_after_the_size_is_one_piece() -> None:
    text = "a " + "b" * 5000
    assert list(pieces(text, size=10)) == [text]


@pytest.mark.parametrize(
    "text",
    [
        "Hello, world! It's 2026_12_05; under_score and [link](https://x.example/a?b=c).",
        "tabs\tand\nlines\r\nand\x0bvertical\x0cfeeds",
        "Ünïcödé wörds, İstanbul and 北京市 too",
        "",
        "   ",
    ],
)
def test_words_are_those_the_word_pattern_finds(text: str) -> None:
    assert words(text) == WORD.findall(text)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "  a  b\t\tc\n",
        "word " * 30_000,
        "x" * 70_000 + "  y",
        "\u00a0 spaced\u2003out " * 20_000,
    ],
)
def test_one_spaced_text_is_its_words_joined_by_single_spaces(text: str) -> None:
    assert one_spaced(text) == " ".join(text.split())
