"""Focused reading: an outline and the passages that answer the focus, within a budget."""

from __future__ import annotations

import re

from spyglass.extract.focus import focused, terms

FILLER = " ".join(
    f"Sentence {n} talks about weather, rivers and the harvest of the valley." for n in range(12)
)


def page() -> str:
    sections = [
        "# Valley guide\n\nThe valley is a farming region founded in 1820 by settlers.\n",
        f"## Climate\n\n{FILLER}\n\n{FILLER}\n",
        f"## Bridges\n\n{FILLER}\n\nThe old stone bridge was rebuilt by Ada Marsh in 1911 "
        f"after the flood.\n\n{FILLER}\n",
        "## Prices\n\n| item | price |\n|---|---|\n"
        + "".join(f"| thing {n} | {n} coins |\n" for n in range(40))
        + "| lantern oil | 7 coins |\n"
        + "".join(f"| other {n} | {n} coins |\n" for n in range(40)),
        f"## Trains\n\n{FILLER}\n\n- first item about rails\n- the night train leaves at 22:15\n"
        f"- last item\n\n{FILLER}\n",
    ]
    return "\n".join(sections)


def test_a_text_shorter_than_the_budget_comes_back_whole() -> None:
    text = "# Short\n\nJust a little text."
    read = focused(text, "anything", 4000)
    assert read.text == text
    assert read.left_out == 0
    assert read.total_chars == len(text)


def test_the_passage_that_answers_is_returned_within_the_budget() -> None:
    text = page()
    read = focused(text, "Who rebuilt the old stone bridge?", 1000)
    assert len(read.text) <= 1000
    assert "rebuilt by Ada Marsh in 1911" in read.text
    assert read.left_out > 0
    assert read.total_chars == len(text)


def test_each_passage_is_marked_with_its_offset_in_the_page() -> None:
    text = page()
    read = focused(text, "When does the night train leave?", 1200)
    body = read.text.split("\n\n", 1)[1]  # after the outline
    shown = re.findall(r"\[at (\d+)\]\n(.{20})", body)
    assert shown
    for mark, following in shown:
        assert text[int(mark) :].startswith(following)
    assert "the night train leaves at 22:15" in read.text


def test_passages_come_in_page_order_with_gaps_marked() -> None:
    text = page()
    read = focused(text, "stone bridge flood and lantern oil price", 1500)
    marks = [int(m) for m in re.findall(r"\[at (\d+)\]", read.text.split("\n\n", 1)[1])]
    assert marks == sorted(marks)
    assert "[…]" in read.text
    assert f"{read.left_out:,} of {len(text):,} characters left out" in read.text


def test_the_outline_lists_the_headings_with_their_offsets() -> None:
    text = page()
    read = focused(text, "lantern oil", 1500)
    assert read.text.startswith("Outline:\n")
    for title in ("Climate", "Bridges", "Prices", "Trains"):
        offset = text.index(f"## {title}")
        assert f"{title} [at {offset}]" in read.text


def test_a_row_cut_from_a_long_table_keeps_the_table_header() -> None:
    text = page()
    read = focused(text, "How much does lantern oil cost?", 1200)
    assert "| lantern oil | 7 coins |" in read.text
    before = read.text.split("| lantern oil |")[0]
    assert "| item | price |\n|---|---|\n" in before


def test_a_who_question_gets_the_page_lead_too() -> None:
    text = page()
    read = focused(text, "Who rebuilt the old stone bridge?", 1200)
    assert "founded in 1820 by settlers" in read.text


def test_the_section_heading_counts_for_a_question_about_it() -> None:
    filler = "Plain words about nothing in particular here. " * 8
    text = "\n\n".join(
        [
            "# Town",
            *(f"## Part {n}\n\n{filler}\n\n{filler}" for n in range(6)),
            f"## Harbour\n\n{filler}\n\nIt opened in 1901.\n\n{filler}",
            *(f"## Part {n}b\n\n{filler}" for n in range(6)),
        ]
    )
    read = focused(text, "harbour opened", 700)
    assert "It opened in 1901." in read.text


def test_offsets_count_from_the_page_when_the_text_starts_later() -> None:
    text = page()
    start = text.index("## Bridges")
    read = focused(text[start:], "stone bridge rebuilt", 800, base=start)
    shown = re.findall(r"\[at (\d+)\]\n(.{20})", read.text.split("\n\n", 1)[1])
    assert shown
    assert all(int(mark) > start and text[int(mark) :].startswith(f) for mark, f in shown)
    assert "The old stone bridge was rebuilt" in read.text


def test_words_are_compared_without_case_stop_words_or_common_endings() -> None:
    assert terms("The Bridges were REBUILT") == terms("bridge rebuilt")


def test_passages_with_only_blank_lines_between_read_on_without_a_gap_mark() -> None:
    text = "# T\n\n" + "\n\n".join(f"Filler paragraph {n} of the page." for n in range(60))
    text += "\n\nThe keeper lit the lamp.\n\nThe lamp burned all night.\n\n"
    text += "\n\n".join(f"Closing paragraph {n} here." for n in range(60))
    read = focused(text, "keeper lamp night", 600)
    assert "The keeper lit the lamp.\n\nThe lamp burned all night." in read.text


def test_an_answer_in_the_paragraph_about_the_focus_comes_before_other_paragraphs() -> None:
    filler = "Plain words about nothing in particular here. " * 8
    answer_paragraph = (
        "The harbour lighthouse stands on the northern mole. "
        + "Its walls are white and its lantern is green. " * 12
        + "Its beam was turned on in 1887."
    )
    text = "\n\n".join(
        ["# Town", *(filler for _ in range(8)), answer_paragraph, *(filler for _ in range(8))]
    )
    read = focused(text, "When was the harbour lighthouse first lit?", 900)
    assert "Its beam was turned on in 1887." in read.text


def test_a_page_whose_lower_case_is_longer_still_finds_the_words_where_they_are() -> None:
    # "İ" lower-cases to two characters: places found in a lower-cased copy would drift back
    # by hundreds of characters here, onto passages that do not hold the words.
    filler = "Plain words about nothing in particular here. " * 3
    text = "\n\n".join(
        [
            "# Town",
            *(filler for _ in range(10)),
            "İSTANBUL İZMİR İNEBOLU " * 100,
            *(filler for _ in range(2)),
            "The ferry leaves at noon.",
            *(filler for _ in range(4)),
        ]
    )
    read = focused(text, "ferry", 400)
    assert "The ferry leaves at noon." in read.text
