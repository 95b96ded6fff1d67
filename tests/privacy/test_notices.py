"""Notices as text lines for the CLI prompt and the MCP approval message."""

from __future__ import annotations

from spyglass.core.outcome import Notice
from spyglass.privacy.notices import lines


def test_findings_come_first_and_quote_the_flagged_part() -> None:
    arguments = {"url": "https://a.example/?e=jane@example.com"}
    notices = [
        Notice("provenance", "result 2 of your search 'x'", "url"),
        Notice("privacy.email", "contains an email address", "url", 21, 37),
    ]
    assert lines(notices, arguments) == [
        '! url contains an email address: "jane@example.com"',
        "i from: result 2 of your search 'x'",
    ]


def test_a_long_flagged_part_is_cut() -> None:
    text = "word " * 40
    (line,) = lines(
        [Notice("privacy.copied_text", "contains 40 words", "query", 0, 200)], {"query": text}
    )
    assert line.endswith('"…') and len(line) < 120
