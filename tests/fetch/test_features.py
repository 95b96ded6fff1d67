"""The chooser's rows: each reading described once, however many rows are built of it."""

from __future__ import annotations

from spyglass.fetch.features import reading_rows

PAGE = {"links": 1.5, "paragraphs": 2.0}
TEXTS = {
    "article": "# Title\n\nA long paragraph of the article, with [a link](https://a.example/).",
    "region": "- [Home](https://a.example/)\n\n# Title\n\nA long paragraph of the article.",
    "block": "A long paragraph of the article.",
}


def test_rows_of_one_more_reading_reuse_what_was_said_of_the_others() -> None:
    described: dict[str, tuple[dict[str, float], set[str]]] = {}
    three = reading_rows(PAGE, TEXTS, described)
    assert set(described) == set(TEXTS.values())
    kept = {text: id(entry) for text, entry in described.items()}
    four = reading_rows(PAGE, {**TEXTS, "dom": "Title\n\nA long paragraph."}, described)
    # The three readings were not described again; the fourth was added.
    assert all(id(described[text]) == entry for text, entry in kept.items())
    assert len(described) == 4
    # The same rows as built from nothing.
    assert three == reading_rows(PAGE, TEXTS)
    assert four == reading_rows(PAGE, {**TEXTS, "dom": "Title\n\nA long paragraph."})
    assert len(four) == 4 and len(four[0]) > len(three[0])
