"""Cutting a page's Markdown into passages that stay Markdown."""

from __future__ import annotations

from spyglass.extract.passages import PASSAGE_CHARS, cut


def test_headings_are_listed_with_their_offsets_and_passages_know_their_section() -> None:
    text = "Intro line.\n\n## Tides\n\nHigh water twice a day.\n"
    headings, passages = cut(text)
    assert [(h.offset, h.level, h.title) for h in headings] == [(13, 2, "Tides")]
    assert [p.section for p in passages] == [-1, 0]
    assert text[passages[1].start : passages[1].end].startswith("High water")


def test_long_prose_is_cut_at_sentence_ends_into_passages_of_about_the_passage_size() -> None:
    text = "".join(f"Sentence number {n} says a little more. " for n in range(60))
    _, passages = cut(text)
    assert len(passages) > 1
    for passage in passages:
        piece = text[passage.start : passage.end]
        assert len(piece) <= PASSAGE_CHARS + 60
        assert piece.rstrip().endswith(".")


def test_every_run_of_a_long_table_s_rows_carries_the_table_s_header() -> None:
    rows = "".join(f"| row {n} | value {n} with some words |\n" for n in range(40))
    text = "| name | value |\n|---|---|\n" + rows
    _, passages = cut(text)
    assert len(passages) > 1
    first, later = passages[0], passages[1]
    assert text[first.start : first.end].startswith("| name | value |")
    assert later.prefix == "| name | value |\n|---|---|\n"


def test_a_long_code_block_cut_in_pieces_reopens_and_closes_its_fence() -> None:
    code = "".join(f"line_{n} = compute({n})  # a comment to make it long\n" for n in range(40))
    text = "```python\n" + code + "```\n"
    _, passages = cut(text)
    assert len(passages) > 1
    assert passages[0].suffix == "```\n" and passages[1].prefix == "```python\n"
