"""Result cleaning: 500-char snippets, no duplicates, domain filters, count cap."""

from __future__ import annotations

from spyglass.search.cleaning import SNIPPET_CHARS, clean_results, shorten
from spyglass.search.model import RawResult, SearchQuery


def test_shorten_cuts_at_a_word_and_marks_the_cut() -> None:
    text = "word " * 200
    short = shorten(text.strip(), SNIPPET_CHARS)
    assert len(short) <= SNIPPET_CHARS and short.endswith("word…")


def test_duplicates_count_cap_and_missing_titles() -> None:
    raw = [
        RawResult("One", "https://example.com/a", "s1"),
        RawResult("One again", "http://EXAMPLE.com/a/", "s1"),
        RawResult("One frag", "https://example.com/a#part", "s1"),
        RawResult("", "https://example.com/b", ""),
        RawResult("Three", "https://example.com/c", "s3"),
    ]
    cleaned = clean_results(raw, SearchQuery("q", count=2))
    assert cleaned == [
        {"title": "One", "url": "https://example.com/a", "snippet": "s1"},
        {"title": "https://example.com/b", "url": "https://example.com/b", "snippet": ""},
    ]


def test_include_domains_match_on_label_boundaries() -> None:
    raw = [
        RawResult("a", "https://example.com/", ""),
        RawResult("b", "https://docs.example.com/", ""),
        RawResult("c", "https://badexample.com/", ""),
        RawResult("d", "https://example.com.evil.net/", ""),
    ]
    cleaned = clean_results(raw, SearchQuery("q", count=10, include_domains=("example.com",)))
    assert [r["title"] for r in cleaned] == ["a", "b"]


def test_exclude_domains_drop_hosts_and_subdomains_only() -> None:
    raw = [
        RawResult("a", "https://pinterest.com/x", ""),
        RawResult("b", "https://www.pinterest.com./x", ""),
        RawResult("c", "https://notpinterest.com/", ""),
    ]
    cleaned = clean_results(raw, SearchQuery("q", count=10, exclude_domains=("pinterest.com",)))
    assert [r["title"] for r in cleaned] == ["c"]
