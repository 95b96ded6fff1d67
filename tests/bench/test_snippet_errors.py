"""The held-out error listing tells each wrong snippet and where a missed one is."""

from __future__ import annotations

from bench.extraction_data import Page
from bench.snippet_errors import DROPPED, NO_READING, OTHER_READING, page_errors


def page(with_: list[str], without: list[str]) -> Page:
    return Page(
        "trafilatura",
        "p1",
        "https://example.org/",
        "article",
        "example.org",
        "",
        with_=with_,
        without=without,
    )


def test_boilerplate_the_output_kept_is_listed_with_the_chosen_reading() -> None:
    errors = page_errors(
        page([], ["Read also: more news"]),
        "The council voted.\n\nRead  also: more news",
        {"article": "", "region": "", "block": ""},
        "article",
    )
    assert [(e.kind, e.reading, e.snippet) for e in errors] == [
        ("kept boilerplate", "article", "Read also: more news")
    ]


def test_a_missed_snippet_is_told_by_which_reading_had_it() -> None:
    texts = {
        "article": "The council voted. The lead paragraph.",
        "region": "Navigation. A standfirst under the headline.",
        "block": "",
    }
    errors = page_errors(
        page(["The lead paragraph", "A standfirst under", "Nowhere at all", "The council"], []),
        "The council voted.",
        texts,
        "article",
    )
    assert [(e.snippet, e.where) for e in errors] == [
        ("The lead paragraph", DROPPED),
        ("A standfirst under", OTHER_READING),
        ("Nowhere at all", NO_READING),
    ]


def test_snippets_are_matched_as_the_benchmark_matches_them() -> None:
    # Markdown markers and link targets do not count; case and spacing do not either.
    errors = page_errors(
        page(["the COUNCIL voted on sunday"], []),
        "**The council** [voted](https://example.org/v) on\nSunday.",
        {"article": "", "region": "", "block": ""},
        "article",
    )
    assert errors == []
