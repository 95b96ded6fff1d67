"""A benchmark page with only the fields a test gives it."""

from __future__ import annotations

from bench.extraction_data import Page


def page(corpus: str, **fields: object) -> Page:
    """A ``corpus`` page at example.org, read as an article, with ``fields`` (its reference
    or its snippets)."""
    return Page(
        corpus=corpus,
        id="1",
        url="https://example.org/",
        type="article",
        domain="example.org",
        html="",
        **fields,  # type: ignore[arg-type]
    )
