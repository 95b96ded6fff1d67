"""Blocks of a reading: code and tables whole, features per block, low-chance blocks out."""

from __future__ import annotations

import math
import re

import pytest

from spyglass.extract.blocks import (
    BLOCK_FEATURES,
    FILTER_FEATURES,
    block_key,
    block_rows,
    keep_content,
    line_keys,
    score_blocks,
    split_blocks,
    too_little,
)

READING = """# Title

A paragraph of running text that explains the subject in some detail for the reader.

```python
print("kept whole")
# even this comment
```

| a | b |
|---|---|
| 1 | 2 |

- [Related story](https://example.com/related)"""


def test_code_blocks_and_tables_are_single_blocks_and_joining_gives_the_text_back() -> None:
    blocks = split_blocks(READING)
    kinds = [block.kind for block in blocks if block.text.strip()]
    assert kinds == ["heading", "text", "code", "table", "item"]
    assert "\n".join(block.text for block in blocks) == READING


def test_every_non_empty_block_gets_one_row_of_every_feature() -> None:
    blocks = split_blocks(READING)
    rows = block_rows(blocks, "article", line_keys({"article": READING, "region": "", "block": ""}))
    filled = [row for row in rows if row]
    assert len(filled) == 5
    assert all(len(row) == len(BLOCK_FEATURES) for row in filled)
    assert [row for row, block in zip(rows, blocks, strict=True) if not block.text.strip()] == [
        [] for block in blocks if not block.text.strip()
    ]


def test_blocks_are_described_alike_with_or_without_the_line_keys_already_found() -> None:
    readings = {"article": READING, "region": f"- [Home](/)\n\n{READING}", "block": ""}
    blocks = split_blocks(READING)
    known: dict[str, bytes] = {}
    keys = line_keys(readings, known)
    assert known["# Title"] == b"title"
    reused = block_rows(blocks, "article", keys, known=known)
    assert reused == block_rows(blocks, "article", line_keys(readings))
    words = BLOCK_FEATURES.index("words")
    # "A paragraph … reader." has fifteen words; the table block, not a line, has its own key.
    assert [row[words] for row in reused if row][:2] == [math.log1p(1), math.log1p(15)]


def test_blocks_below_the_threshold_are_left_out_and_the_rest_keep_their_markdown() -> None:
    readings = {"article": READING, "region": "", "block": ""}

    def links_are_boilerplate(rows: list[list[float]]) -> list[float]:
        link_density = BLOCK_FEATURES.index("link_density")
        return [0.1 if row[link_density] > 0.5 else 0.9 for row in rows]

    kept = keep_content("article", readings, links_are_boilerplate, 0.5)
    assert "Related story" not in kept
    assert '```python\nprint("kept whole")\n# even this comment\n```' in kept
    assert "| 1 | 2 |" in kept
    assert kept.startswith("# Title")


def test_the_top_heading_is_kept_when_the_model_gives_it_a_low_chance_and_others_are_not() -> None:
    body = (
        "The council will turn the old tram depot into the city's third library by 2028, "
        "keeping its brick halls and the rails in the floor of the reading room."
    )
    reading = (
        f"Kicker above the title\n\n# Old tram depot to become a library\n\n{body}\n\n## Reactions"
    )
    readings = {"article": reading, "region": "", "block": ""}

    def all_boilerplate(rows: list[list[float]]) -> list[float]:
        return [0.2 if row[BLOCK_FEATURES.index("block_kind")] == 1.0 else 0.9 for row in rows]

    kept = keep_content("article", readings, all_boilerplate, 0.5)
    assert kept == f"Kicker above the title\n\n# Old tram depot to become a library\n\n{body}"


def test_a_reading_of_a_few_lines_is_kept_whole_whatever_the_model_says() -> None:
    reading = "Price: 12 EUR, delivered within three working days\n\nAdd to basket"
    readings = {"article": reading, "region": "", "block": ""}
    assert keep_content("article", readings, lambda rows: [0.0] * len(rows), 0.5) == reading


@pytest.mark.parametrize(
    "reading",
    [
        "Skip to content",
        "You need to enable JavaScript to run this app.",
        "[Aliexpress](https://example.com/) I'm shopping for...",
    ],
)
def test_a_reading_of_fewer_than_ten_words_is_no_body(reading: str) -> None:
    readings = {"article": reading, "region": "", "block": ""}
    assert keep_content("article", readings, lambda rows: [0.9] * len(rows), 0.5) == ""


def test_a_reading_of_which_the_model_would_keep_only_its_heading_stays_whole() -> None:
    body = "A list of offers that the page builds with its scripts once they have run. " * 4
    reading = f"# Best identity theft protection of 2026\n\n{body.strip()}"
    readings = {"article": reading, "region": "", "block": ""}

    def only_headings(rows: list[list[float]]) -> list[float]:
        return [0.9 if row[BLOCK_FEATURES.index("block_kind")] == 1.0 else 0.1 for row in rows]

    assert keep_content("article", readings, only_headings, 0.5) == reading


def test_ten_words_or_a_sentence_in_chinese_or_japanese_is_a_body() -> None:
    for reading in (
        "Opening hours: Monday to Friday, nine to five, closed on holidays",
        "子どもへの体罰を禁止する法律ができる",
    ):
        readings = {"article": reading, "region": "", "block": ""}
        assert keep_content("article", readings, lambda rows: [0.9] * len(rows), 0.5) == reading
    assert too_little("one two three four five six seven eight nine")
    assert not too_little("one two three four five six seven eight nine ten")


def test_what_is_kept_has_blank_lines_blank_and_one_marker_to_a_heading() -> None:
    first = "The harbour master said the quay was repaired over the winter months. " * 2
    second = "The first ferry of the season sails on Monday morning at seven o'clock. " * 2
    code = "```sh\n# # not a heading\n  \necho done\n```"
    reading = f"## ### Ferries\n{first}\n\t\t\n   \n\t\n{second}\n{code}"
    readings = {"article": reading, "region": "", "block": ""}
    kept = keep_content("article", readings, lambda rows: [0.9] * len(rows), 0.5)
    assert kept == f"## Ferries\n{first}\n\n{second}\n{code}"


def test_a_readings_summary_says_how_much_of_it_the_model_would_keep() -> None:
    readings = {"article": READING, "region": "", "block": ""}

    def links_are_boilerplate(rows: list[list[float]]) -> list[float]:
        link_density = BLOCK_FEATURES.index("link_density")
        return [0.1 if row[link_density] > 0.5 else 0.9 for row in rows]

    summary = score_blocks("article", readings, links_are_boilerplate).summary(0.5)
    values = dict(zip(FILTER_FEATURES, summary, strict=True))
    assert values["filter_kept_blocks_share"] == 4 / 5
    assert 0.8 < values["filter_kept_share"] < 1.0
    assert values["filter_mean_chance"] == pytest.approx(0.1 + 0.8 * values["filter_kept_share"])
    assert values["filter_sure_share"] == values["filter_kept_share"]


def test_an_empty_reading_has_nothing_kept_and_unknown_shares() -> None:
    readings = {"article": READING, "region": "", "block": ""}
    scored = score_blocks("region", readings, lambda rows: [0.5 for _ in rows])
    first, *shares = scored.summary(0.5)
    assert first == 0.0
    assert all(math.isnan(share) for share in shares)


def test_many_blocks_are_scored_in_batches_with_the_chances_they_get_all_at_once() -> None:
    reading = "\n\n".join(
        f"Paragraph number {n} of a page of many short ones." for n in range(5000)
    )
    readings = {"article": reading, "region": "", "block": ""}
    batches: list[int] = []

    def by_position(rows: list[list[float]]) -> list[float]:
        batches.append(len(rows))
        return [row[BLOCK_FEATURES.index("position")] for row in rows]

    scored = score_blocks("article", readings, by_position)
    rows = block_rows(split_blocks(reading), "article", line_keys(readings))
    position = BLOCK_FEATURES.index("position")
    assert scored.chances == [row[position] if row else None for row in rows]
    assert sum(batches) == 5000 and max(batches) < 5000


def test_a_page_long_line_is_keyed_by_all_its_words() -> None:
    long_line = " ".join(f"w{n}" for n in range(100_000))
    assert block_key(long_line) == long_line.encode()
    assert block_key(f"**Bold**, [a link](https://x.example/{long_line}) and more") == (
        b"bold a link and more"
    )
    assert too_little(long_line) is False


@pytest.mark.parametrize(
    ("text", "little"),
    [
        ("one two three four five six seven eight nine", True),
        ("one two three four five six seven eight nine ten", False),
        # One word of the run, and each of its eight characters.
        ("一二三四五六七八", True),
        ("one 一二三四五六七八九", False),
        ("[nine words in the label of this one link](" + "x " * 100_000 + ")", True),
    ],
)
def test_fewer_than_ten_words_is_too_little_however_long_the_text(text: str, little: bool) -> None:
    assert too_little(text) is little


@pytest.mark.parametrize(
    "text", ["Page 12 of 345, updated 2026.", "Seite ٣ von ১২ und 7", "no digits"]
)
def test_a_blocks_digit_share_counts_every_digit_the_pattern_finds(text: str) -> None:
    keys = line_keys({"article": text, "region": "", "block": ""})
    rows = block_rows(split_blocks(text), "article", keys)
    share = rows[0][BLOCK_FEATURES.index("digit_share")]
    assert share == len(re.findall(r"\d", text)) / len(text)
