"""The provider docs say what owners must know before choosing a provider."""

from __future__ import annotations

from pathlib import Path

DOCS = Path(__file__).resolve().parents[1] / "docs"


def test_the_search_docs_say_brave_s_free_credit_requires_crediting_brave_search() -> None:
    text = " ".join((DOCS / "search.md").read_text(encoding="utf-8").split())
    assert "free monthly credit" in text and "credits Brave Search" in text


def test_the_fetch_docs_say_what_each_reader_needs_costs_and_sees() -> None:
    from spyglass.fetch.hosted import READERS

    text = (DOCS / "fetch.md").read_text(encoding="utf-8")
    for name in READERS:
        section = text.split(f"### `{name}`", 1)[1].split("###", 1)[0]
        assert "key" in section.lower() and "sees" in section.lower(), name
