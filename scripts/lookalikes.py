"""Writes ``src/spyglass/untrusted/lookalikes.py``: characters that look like the tag's letters.

Three sources, all Unicode's own: the character names (small capitals, letters with hooks or
strokes, squared and modifier letters: whatever Unicode names as a Latin letter); compatibility
decomposition (NFKD, the half of NFKC that maps fullwidth, mathematical, circled, superscript
and ligature forms to plain letters), with the combining marks then dropped (``ü`` reads as
``u``); and the visual confusables of Unicode Technical Standard #39 (Cyrillic ``о``, Greek
``ρ``, Cherokee ``Ꭲ`` ...) as the confusable-homoglyphs package ships them (a development
dependency: the table is generated once, so start-up does not load a 900 kB data file).
``tests/untrusted/test_lookalikes.py`` checks that the file is current.

    .venv/bin/python scripts/lookalikes.py
"""

from __future__ import annotations

import re
import sys
import unicodedata
from pathlib import Path

TAG = "untrusted_tool_output"
#: The tag's letters in both cases, and what envelope.py accepts between its words.
TARGETS = frozenset(TAG.replace("_", "") + TAG.replace("_", "").upper() + "_-. ")
OUTPUT = Path(__file__).resolve().parent.parent / "src" / "spyglass" / "untrusted" / "lookalikes.py"
# Bidi marks the confusables data puts around right-to-left characters.
_MARKS = "\u200e\u200f"


def _base(char: str) -> str:
    """``char`` decomposed for compatibility, without its combining marks."""
    return "".join(c for c in unicodedata.normalize("NFKD", char) if not unicodedata.combining(c))


def decomposed() -> dict[str, str]:
    """Every non-ASCII character whose compatibility base is spelled only with target characters."""
    fold: dict[str, str] = {}
    for point in range(0x80, sys.maxunicode + 1):
        if 0xD800 <= point <= 0xDFFF:
            continue
        char = chr(point)
        base = _base(char)
        if base and base != char and set(base) <= TARGETS:
            fold[char] = base
    return fold


# Latin letters Unicode names as such: small capitals, hooks and strokes, circled, squared and
# negative squared capitals, modifier and subscript letters, regional indicators.
_NAMED = re.compile(
    r"(?:[A-Z ]+ )?LATIN (?:SMALL |CAPITAL )?LETTER (?:SMALL CAPITAL )?(?P<a>[A-Z])(?: WITH .+)?"
    r"|MODIFIER LETTER (?:SMALL |CAPITAL )(?:CAPITAL )?(?P<b>[A-Z])"
    r"|LATIN SUBSCRIPT SMALL LETTER (?P<c>[A-Z])"
    r"|REGIONAL INDICATOR SYMBOL LETTER (?P<d>[A-Z])"
)


def named() -> dict[str, str]:
    """Every non-ASCII, non-combining character Unicode names as one of the tag's letters."""
    fold: dict[str, str] = {}
    for point in range(0x80, sys.maxunicode + 1):
        char = chr(point)
        match = _NAMED.fullmatch(unicodedata.name(char, ""))
        if match is None or unicodedata.category(char).startswith("M"):
            continue
        letter = next(group for group in match.groups() if group).lower()
        if letter in TARGETS:
            fold[char] = letter
    return fold


def confusables() -> tuple[dict[str, str], dict[str, str]]:
    """TR39's single-character look-alikes of each target: (non-ASCII fold, ASCII alike)."""
    from confusable_homoglyphs.confusables import confusables_data  # development dependency

    fold: dict[str, str] = {}
    ascii_alikes: dict[str, str] = {}
    for target in sorted(TARGETS):
        for entry in confusables_data.get(target, []):
            char = entry["c"].strip(_MARKS)
            if len(char) != 1 or char == target:
                continue
            if char.isascii():
                ascii_alikes[target] = ascii_alikes.get(target, "") + char
            else:
                fold.setdefault(char, target)
    return fold, ascii_alikes


def table() -> tuple[dict[str, str], dict[str, str]]:
    """(fold: character -> what it reads as, ascii alikes: letter -> ASCII look-alikes)."""
    fold, ascii_alikes = confusables()
    # A name, and then decomposition, are exact where they apply; they win over a visual guess.
    fold.update(named())
    fold.update(decomposed())
    return fold, ascii_alikes


def _literal(chars: str) -> str:
    escapes = [f"\\u{ord(c):04x}" if ord(c) <= 0xFFFF else f"\\U{ord(c):08x}" for c in chars]
    lines: list[str] = [""]
    for escape in escapes:
        if len(lines[-1]) + len(escape) > 84:
            lines.append("")
        lines[-1] += escape
    return "\n".join(f'        "{line}"' for line in lines)


def _quoted(text: str) -> str:
    # Double quotes, as the formatter writes them (the texts here hold no quote or backslash).
    return f'"{text}"'


def render() -> str:
    """The module's source text."""
    fold, ascii_alikes = table()
    by_reading: dict[str, str] = {}
    for char in sorted(fold):
        by_reading[fold[char]] = by_reading.get(fold[char], "") + char
    entries = []
    for reading in sorted(by_reading):
        literal = _literal(by_reading[reading])
        if "\n" in literal:
            entries.append(f"    {_quoted(reading)}: (\n{literal}\n    ),")
        else:
            entries.append(f"    {_quoted(reading)}: {literal.strip()},")
    alikes = ", ".join(f"{_quoted(k)}: {_quoted(v)}" for k, v in sorted(ascii_alikes.items()))
    return (
        '"""Characters that read as the letters of the envelope\'s tag (generated: do not edit).\n'
        "\n"
        "Written by ``scripts/lookalikes.py`` from Unicode compatibility decomposition (marks\n"
        "dropped) and the confusables of Unicode Technical Standard #39;\n"
        "``spyglass.untrusted.envelope`` "
        "folds text with it before looking for the tag.\n"
        '"""\n'
        "\n"
        "from __future__ import annotations\n"
        "\n"
        "#: The Unicode version of the decomposition data the table was written from.\n"
        f"UNICODE_VERSION = {_quoted(unicodedata.unidata_version)}\n"
        "\n"
        "#: What a character reads as -> every non-ASCII character that reads so.\n"
        "READS_AS: dict[str, str] = {\n" + "\n".join(entries) + "\n}\n"
        "\n"
        "#: ASCII characters that look like one of the tag's letters (``1`` and ``I`` for ``l``).\n"
        f"ASCII_ALIKES: dict[str, str] = {{{alikes}}}\n"
    )


if __name__ == "__main__":
    OUTPUT.write_text(render(), encoding="utf-8")
    print(OUTPUT)
