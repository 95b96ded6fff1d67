"""The block-headroom measures filter by the labels and compute their extra columns as their
docs say."""

from __future__ import annotations

import math

import numpy
import pytest
from bench.block_headroom import (
    FAMILIES,
    WINDOW,
    Mean,
    by_labels,
    extra_columns,
    of_families,
    section,
    shape,
    stop,
    voice,
    window,
    with_columns,
)
from bench.block_training import Truth

from spyglass.extract.blocks import Block, split_blocks
from tests.bench.corpus_pages import page


def truth(corpus: str, **fields: object) -> Truth:
    return Truth(page(corpus, **fields))


def blocks(markdown: str) -> list[Block]:
    return [b for b in split_blocks(markdown) if b.text.strip()]


def test_filtering_by_labels_leaves_out_only_the_blocks_the_reference_lacks() -> None:
    reference = "The river rose three metres overnight and the town was evacuated."
    reading = (
        "# Flood\n"
        "The river rose three metres overnight and the town was evacuated.\n"
        "Subscribe to our newsletter for more stories like this one today."
    )
    kept = by_labels(reading, truth("wcxb", reference=reference))
    assert "The river rose three metres" in kept
    assert "Subscribe" not in kept


def test_a_block_the_references_do_not_judge_stays() -> None:
    snippets = truth("trafilatura", with_=["the river rose"], without=["subscribe to our"])
    reading = "The river rose.\nA line no snippet names.\nSubscribe to our newsletter."
    assert by_labels(reading, snippets) == "The river rose.\nA line no snippet names."


def test_the_window_averages_the_neighbours_and_not_the_block_itself() -> None:
    found = window(blocks("[a](https://x.org/a)\nplain words here\n[b](https://x.org/b)"))
    assert found[1][0] == pytest.approx(1.0)
    # The first block's window: the plain block and the other link.
    assert found[0][0] == pytest.approx(0.5)


def test_the_window_reaches_only_so_many_blocks_each_side() -> None:
    plain = "\n".join(f"plain line {n}" for n in range(WINDOW + 1))
    links = "\n".join(f"[{n}](https://x.org/{n})" for n in range(WINDOW))
    found = window(blocks(f"{plain}\n{links}"))
    assert found[0][0] == 0.0
    assert found[WINDOW][0] == pytest.approx(0.5)


def test_a_lone_block_is_its_own_window() -> None:
    assert window(blocks("[a](https://x.org/a)")) == [[1.0, pytest.approx(math.log1p(1))]]


def test_a_section_runs_from_one_heading_to_the_next() -> None:
    found = section(blocks("# One\nfour words are here\n# Two\n[link](https://x.org/)"))
    # "# One" and its paragraph: 1 + 4 words (the marker is no word), no links, two blocks.
    assert found[0] == found[1]
    assert found[0][0] == pytest.approx(math.log1p(5))
    assert found[0][1] == 0.0
    assert found[0][2] == pytest.approx(math.log1p(2))
    # The second section is half link, and the two sections share the words.
    assert found[3][1] == pytest.approx(0.5)
    assert found[0][3] + found[2][3] == pytest.approx(1.0)


def test_blocks_of_one_shape_count_each_other() -> None:
    found = shape(blocks("- [One](https://x.org/1)\n- [Two](https://x.org/2)\nA longer sentence."))
    assert found[0] == found[1] == [pytest.approx(math.log1p(2)), pytest.approx(2 / 3)]
    assert found[2] == [pytest.approx(math.log1p(1)), pytest.approx(1 / 3)]


def test_a_review_speaks_in_the_first_person_and_an_offer_in_a_currency() -> None:
    review, price = voice(blocks("I love my new kettle!\nNow $12.99 or €11 with VAT"))
    assert review == [pytest.approx(2 / 5), 0.0, 1.0]
    assert price[1] > 0.0
    assert price[0] == 0.0
    assert price[2] == 0.0


def test_stop_word_density_counts_the_stop_words_of_the_reading_s_language() -> None:
    prose, menu = stop(
        blocks("The cat sat on the mat and it was not happy about that.\nShop Cart Login Basket")
    )
    assert prose[0] > 0.4
    assert prose[1] == pytest.approx(math.log1p(round(prose[0] * 13)))
    assert menu[:2] == [0.0, 0.0]
    assert prose[2] == menu[2] == pytest.approx(prose[0] * 13 / 17)


def test_a_german_reading_is_weighed_by_german_stop_words() -> None:
    [german] = stop(blocks("Das ist ein Haus, und der Hund ist nicht in dem Garten."))
    assert german[0] > 0.5


def test_a_reading_without_any_stop_word_has_none_anywhere() -> None:
    assert stop(blocks("12345\n67890")) == [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]


class Constant:
    def __init__(self, value: float) -> None:
        self.value = value

    def predict(self, x: numpy.ndarray, num_threads: int = 1) -> numpy.ndarray:
        return numpy.full(len(x), self.value)


def test_models_answering_together_give_the_mean_of_their_chances() -> None:
    found = Mean([Constant(0.2), Constant(0.6)]).predict(numpy.zeros((3, 2)))
    assert found.tolist() == pytest.approx([0.4, 0.4, 0.4])


def test_extra_columns_join_the_families_in_the_order_asked() -> None:
    markdown = "# Title\nSome words in a paragraph.\n\n- [link](https://x.org/)"
    rows = extra_columns(markdown, ["voice", "window"])
    assert len(rows) == 3
    assert all(len(row) == len(FAMILIES["voice"][1]) + len(FAMILIES["window"][1]) for row in rows)
    assert rows[1][3:] == window(blocks(markdown))[1]


def test_a_reading_without_blocks_has_no_extra_rows() -> None:
    assert extra_columns("\n\n", ["shape"]) == []


def test_the_columns_are_appended_to_each_block_row_and_empty_readings_stay_empty() -> None:
    page = {"texts": {"region": "First line here.\nSecond line here.", "block": ""}}
    x = numpy.zeros((2, 4), dtype=numpy.float32)
    empty = numpy.zeros(0, dtype=numpy.float32)
    labels = numpy.ones(2)
    [grown, none] = with_columns(
        [{"region": (x, labels, labels), "block": (empty, empty, empty)}, None],
        [page, page],
        of_families(["shape"]),
    )
    assert none is None
    assert grown is not None
    assert grown["region"][0].shape == (2, 4 + len(FAMILIES["shape"][1]))
    extra = extra_columns(page["texts"]["region"], ["shape"])
    assert numpy.allclose(grown["region"][0][:, 4:], numpy.asarray(extra))
    assert grown["block"][0] is empty
