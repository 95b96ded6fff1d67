"""Cutting a page's Markdown into passages that stay Markdown, for focused reading.

Prose is cut by sentences, tables by rows (a table's header goes with any run of its rows),
lists by items, code by lines inside its fence; each passage is about :data:`PASSAGE_CHARS`
long, so a small budget holds several places in the page rather than one long stretch.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: The size a passage is cut to, in characters: about two sentences.
PASSAGE_CHARS = 320

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{2,}")
# A sentence ends at the end of a match: the stop is matched, not looked behind for, which
# lets the regex engine skip ahead to the next stop (four times faster on a long page).
_SENTENCE = re.compile(r"[.!?;][\"'”)\]]*\s+(?=\S)")


@dataclass(frozen=True)
class Passage:
    """A stretch of the page's Markdown that can be shown on its own."""

    start: int
    end: int
    #: Markdown put before and after the cut so it stays well formed (a table's header, a
    #: code fence).
    prefix: str
    suffix: str
    section: int  # index into the headings, -1 before the first
    block: int  # the paragraph (or table, list, code block) it was cut from


@dataclass(frozen=True)
class Heading:
    """A heading of the page: where it is, its level and its words."""

    offset: int
    level: int
    title: str


def cut(text: str) -> tuple[list[Heading], list[Passage]]:
    """The page's headings, and its passages in page order."""
    headings: list[Heading] = []
    passages: list[Passage] = []
    for kind, start, lines in _blocks(text):
        if kind == "heading":
            match = _HEADING.match(lines[0])
            level = len(match.group(1)) if match else 1
            title = match.group(2) if match else lines[0]
            headings.append(Heading(start, level, title))
            continue
        section = len(headings) - 1
        block = passages[-1].block + 1 if passages else 0
        for a, b, prefix, suffix in _split(kind, start, lines):
            passages.append(Passage(a, b, prefix, suffix, section, block))
    return headings, passages


def _blocks(text: str) -> list[tuple[str, int, list[str]]]:
    """Blocks of Markdown: (kind, offset, lines), the lines with their line breaks."""
    blocks: list[tuple[str, int, list[str]]] = []
    kind, start = "", 0
    lines: list[str] = []
    fence = ""
    offset = 0

    def close() -> None:
        if lines:
            blocks.append((kind, start, lines))

    for line in text.splitlines(keepends=True):
        here = offset
        offset += len(line)
        stripped = line.strip()
        if fence:
            lines.append(line)
            if stripped.startswith(fence):
                close()
                kind, lines, fence = "", [], ""
            continue
        if not stripped:
            close()
            kind, lines = "", []
            continue
        fenced = _FENCE.match(line)
        if fenced:
            close()
            kind, start, lines, fence = "code", here, [line], fenced.group(1)
            continue
        if _HEADING.match(line):
            close()
            blocks.append(("heading", here, [line]))
            kind, lines = "", []
            continue
        line_kind = "table" if stripped.startswith("|") else "list" if _ITEM.match(line) else ""
        if not lines:
            kind, start, lines = line_kind or "prose", here, [line]
        elif line_kind and line_kind != kind:
            close()
            kind, start, lines = line_kind, here, [line]
        else:
            lines.append(line)
    close()
    return blocks


def _split(kind: str, start: int, lines: list[str]) -> list[tuple[int, int, str, str]]:
    """A block cut into passages of about :data:`PASSAGE_CHARS`: (start, end, prefix, suffix)."""
    size = sum(len(line) for line in lines)
    if size <= PASSAGE_CHARS * 1.5:
        return [(start, start + size, "", "")]
    if kind == "prose":
        units = _sentences("".join(lines), start)
        return [(a, b, "", "") for a, b in _group(units)]
    offsets = []
    at = start
    for line in lines:
        offsets.append((at, at + len(line)))
        at += len(line)
    prefix = suffix = ""
    if kind == "table":
        rule = 2 if len(lines) > 2 and _TABLE_RULE.match(lines[1]) else 0
        prefix = "".join(lines[:rule])
        offsets = offsets[rule:] if rule else offsets
        if rule:
            offsets[0] = (start, offsets[0][1])  # the first rows come with their header
    elif kind == "code":
        prefix = lines[0]
        suffix = lines[-1] if len(lines) > 1 and _FENCE.match(lines[-1]) else ""
    elif kind == "list":
        offsets = _items(lines, start)
    groups = _group(offsets)
    out = []
    for i, (a, b) in enumerate(groups):
        first, last = i == 0, i == len(groups) - 1
        out.append(
            (a, b, "" if first else prefix, "" if last or kind != "code" else _close(suffix))
        )
    return out


def _close(fence: str) -> str:
    return fence if fence.endswith("\n") else fence + "\n"


def _items(lines: list[str], start: int) -> list[tuple[int, int]]:
    """A list's items: an item's continuation lines go with it."""
    items: list[tuple[int, int]] = []
    at = start
    for line in lines:
        if _ITEM.match(line) or not items:
            items.append((at, at + len(line)))
        else:
            items[-1] = (items[-1][0], at + len(line))
        at += len(line)
    return items


def _sentences(block: str, start: int) -> list[tuple[int, int]]:
    units = []
    at = 0
    for match in _SENTENCE.finditer(block):
        units.append((start + at, start + match.end()))
        at = match.end()
    units.append((start + at, start + len(block)))
    return units


def _group(units: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Consecutive units joined while they fit in :data:`PASSAGE_CHARS`."""
    groups: list[tuple[int, int]] = []
    for a, b in units:
        if groups and b - groups[-1][0] <= PASSAGE_CHARS:
            groups[-1] = (groups[-1][0], b)
        else:
            groups.append((a, b))
    return groups
