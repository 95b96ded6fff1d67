"""The lines that open an article above the element trafilatura reads it from.

trafilatura reads an article from the element that holds its body. Many pages put the
article's opening — the lead or standfirst under the headline, a summary paragraph — in an
element of its own above that one, and the article reading then starts at the second
paragraph. The region reading has those lines, between the headline and the line the
article reading starts with. :func:`with_lead` puts them in front of the article reading;
the block filter then weighs each of them like any other line of the reading, so a byline,
a date or a share bar in the same place is still left out.

Extraction does this only on a page that declares itself an article (JSON-LD, microdata or
``og:type``, :func:`spyglass.extract.thresholds.declared_type`): above a forum thread's first post,
the same place holds its posters' names and dates, and on every page together the lead
cost forums more than it gave articles (docs/benchmarks.md, rounds eleven and twelve).
"""

from __future__ import annotations

from spyglass.extract.repeated_lines import line_words

__all__ = ["with_lead"]


def line_key(line: str) -> str:
    """A line's words (:func:`~spyglass.extract.repeated_lines.line_words`) as one key: the same
    line in two readings has the same key; a line without words has ``""``."""
    return " ".join(line_words(line))


def with_lead(article: str, region: str) -> str:
    """``article`` preceded by the lines ``region`` has between its last heading above the
    article's first line and that line (the heading left out: the title is the header's).

    Nothing is added when the region does not have the article's opening line, or has no
    heading above it: without a headline to start from, what comes before the article is the
    page's navigation and header, not its lead.
    """
    if not article or not region:
        return article
    article_keys = {line_key(line) for line in article.split("\n")} - {""}
    lines = region.split("\n")
    start = next((i for i, line in enumerate(lines) if line_key(line) in article_keys), None)
    if start is None:
        return article
    lead: list[str] = []
    for line in reversed(lines[:start]):
        stripped = line.lstrip()
        if stripped.startswith("#"):
            break
        if stripped and line_key(line) not in article_keys:
            lead.append(line)
    else:
        return article  # no heading above the article's first line
    if not lead:
        return article
    return "\n\n".join(reversed(lead)) + "\n\n" + article
