"""Parts end at a line break, chain through next_offset, and cover the text exactly."""

from __future__ import annotations

import pytest

from spyglass.errors import CapabilityError
from spyglass.fetch.paging import part

TEXT = "".join(f"line {n:04d} of the document\n" for n in range(400))


def test_parts_chain_through_next_offset_and_rebuild_the_text() -> None:
    pieces = []
    offset: int | None = 0
    while offset is not None:
        piece = part(TEXT, offset, 1000)
        pieces.append(piece.text)
        offset = piece.next_offset
    assert "".join(pieces) == TEXT
    assert len(pieces) > 5


def test_a_part_ends_at_a_line_break_when_there_is_one() -> None:
    piece = part(TEXT, 0, 1000)
    assert piece.text.endswith("\n")
    assert piece.truncated
    assert piece.total_chars == len(TEXT)
    assert len(piece.text) <= 1000


def test_text_without_line_breaks_is_cut_at_a_space_then_hard() -> None:
    words = "word " * 500
    assert part(words, 0, 600).text.endswith(" ")
    solid = "x" * 3000
    assert len(part(solid, 0, 600).text) == 600


def test_the_last_part_has_no_next_offset() -> None:
    piece = part(TEXT, len(TEXT) - 10, 1000)
    assert piece.next_offset is None
    assert not piece.truncated


def test_empty_text_at_offset_zero_is_an_empty_part() -> None:
    piece = part("", 0, 500)
    assert piece.text == ""
    assert piece.total_chars == 0


@pytest.mark.parametrize("offset", [len(TEXT), len(TEXT) + 1, 10**9])
def test_an_offset_past_the_end_is_out_of_range(offset: int) -> None:
    with pytest.raises(CapabilityError) as caught:
        part(TEXT, offset, 1000)
    assert caught.value.code == "OFFSET_OUT_OF_RANGE"
    assert "offset 0" in caught.value.message
