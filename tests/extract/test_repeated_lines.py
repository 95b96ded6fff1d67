"""Repeated lines and empty markers dropped; code, tables and one-word lines kept."""

from __future__ import annotations

import tracemalloc

from spyglass.extract.repeated_lines import drop_repeated_lines


def test_a_line_repeating_an_earlier_one_is_dropped_and_the_first_kept() -> None:
    markdown = "Share this story\n\nFirst paragraph here.\n\nShare this story\n\nEnd text."
    assert (
        drop_repeated_lines(markdown) == "Share this story\n\nFirst paragraph here.\n\n\nEnd text."
    )


def test_lines_differing_only_in_link_targets_or_markers_count_as_repeats() -> None:
    markdown = (
        "- [Add to cart](https://shop.example/cart?id=1)\n"
        "- [Add to cart](https://shop.example/cart?id=2)\n"
        "**Add to cart**"
    )
    assert drop_repeated_lines(markdown) == "- [Add to cart](https://shop.example/cart?id=1)"


def test_one_word_lines_are_kept_even_when_repeated() -> None:
    markdown = "Alice\nYes\nBob\nYes"
    assert drop_repeated_lines(markdown) == markdown


def test_repeats_inside_code_blocks_and_table_rows_are_kept() -> None:
    markdown = (
        "```\nreturn None\nreturn None\n```\n"
        "| a | b |\n| --- | --- |\n| same row | 1 |\n| same row | 1 |\n"
        "return None"
    )
    kept = drop_repeated_lines(markdown)
    assert kept.count("return None") == 3
    assert kept.count("| same row | 1 |") == 2


def test_text_without_repeats_is_returned_unchanged() -> None:
    markdown = "# Title\n\nOne sentence.\n\n- item one\n- item two"
    assert drop_repeated_lines(markdown) == markdown


def test_a_heading_or_list_marker_without_words_is_dropped_outside_code() -> None:
    markdown = "## \n\nWith Reliable Van.\n\n-\n\n- Safeway Moving\n\n```sh\n#\n-\n```"
    assert drop_repeated_lines(markdown) == (
        "\nWith Reliable Van.\n\n\n- Safeway Moving\n\n```sh\n#\n-\n```"
    )


def test_lines_known_from_another_reading_are_judged_as_if_read_afresh() -> None:
    known: dict[str, str] = {}
    region = "Share this story\n\n# \n\nYes\n\nFirst paragraph here.\n\nShare this story"
    block = "First paragraph here.\n\nYes\n\n# \n\nFirst paragraph here.\n\nYes"
    assert drop_repeated_lines(region, known) == drop_repeated_lines(region)
    assert drop_repeated_lines(block, known) == drop_repeated_lines(block)
    assert drop_repeated_lines(block, known) == "First paragraph here.\n\nYes\n\n\n\nYes"


def test_a_page_long_line_is_judged_without_holding_a_list_of_its_words() -> None:
    line = "A sentence of a paragraph that goes on to the size cap. " * 40_000
    tracemalloc.start()
    try:
        kept = drop_repeated_lines(f"{line}\n{line.upper()}\nEnd of it.")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert kept == f"{line}\nEnd of it."
    # Its 480,000 words as one list of strings took about 30 MB; the line is 2.2 MB.
    assert peak < 8 * len(line)
