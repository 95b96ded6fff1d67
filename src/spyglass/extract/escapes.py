"""The page's own characters in the article reading, as the other readings write them.

trafilatura's Markdown puts a backslash before every ``*``, ``_``, `````, ``~``, ``[``,
``]`` and ``<`` of the page's text, so that a renderer shows the character rather than
emphasis or a link. The reading is for a model, which reads the characters, not their
rendering: "Investor\\*innen" and "Liebe\\_r Besucher\\_in" are the page's words with noise
in them, a quotation of the page no longer matches it, and the same line read by the region
reading (which writes text as it is) looks like a different line. So the article reading
takes those backslashes out again, except where taking one out would change what the
Markdown says: inside code (where a backslash is the page's own), in a link's label (where
a bracket would end the label), and in front of the first character of a line that would
otherwise begin a list item, a rule or a code fence. Its ``<u>`` tags around underlined
text go too: underlining is how a page draws a link or an emphasis, which the Markdown
already says, and the other readings write the words alone. (``<sup>`` and ``<sub>`` stay:
"x<sup>2</sup>" means something "x2" does not.)
"""

from __future__ import annotations

import re

__all__ = ["unescape_prose"]

# An escaped character, with any backslashes of the page's own before it (which trafilatura
# doubled). A run is read from its first backslash only: trying each later one would read
# the rest of the run again, and no run begins in the middle of one.
_ESCAPED = re.compile(r"(?<!\\)(?P<run>\\+)(?P<char>[*_`~\[\]<])")
# trafilatura's underline tags: the page's own "<" is always escaped, so a bare tag is its.
_UNDERLINE = re.compile(r"(?<!\\)</?u>")
# One pass, leftmost first: a code span, a link or image, an escaped character or an
# underline tag. No attempt reads past where the next attempt of its kind begins, so a line
# is read in time that grows with its length, not its square: a code span opens only at the
# start of a run of backticks (as CommonMark reads one), a link's label holds no unescaped
# "[" (CommonMark's "[a [b](c)" is a bracket and a link) and its target stops at the next
# "](".
_TOKENS = re.compile(
    r"(?P<code>(?<![\\`])(?P<ticks>`+)(?!`).*?(?<!`)(?P=ticks)(?!`))"
    r"|(?P<link>!?\[(?:\\.|[^\[\]\\\n])*\]\((?:[^)\]\n]|\](?!\())*\))"
    rf"|{_ESCAPED.pattern}"
    rf"|(?P<underline>{_UNDERLINE.pattern})"
)
_FENCE = re.compile(r"^\s{0,3}(```|~~~)")
# What a line may not begin with once unescaped: a list item ("* "), a rule ("***",
# "_ _ _") or a code fence ("~~~"); its first escape is what keeps it text.
_BLOCK_START = re.compile(r"\s{0,3}(?:\*(?:\s|$)|(?:[*_]\s*){3,}$|~~~)")


def unescape_prose(markdown: str) -> str:
    """``markdown`` with trafilatura's escapes of inline characters and its underline tags
    undone where the text means the same without them; fenced code blocks are left as they
    are."""
    if "\\" not in markdown and "u>" not in markdown:
        return markdown
    lines = markdown.split("\n")
    fenced = False
    for number, line in enumerate(lines):
        if _FENCE.match(line):
            fenced = not fenced
            continue
        if fenced or ("\\" not in line and "u>" not in line):
            continue
        unescaped = _TOKENS.sub(_token, line)
        if _BLOCK_START.match(unescaped) and not _BLOCK_START.match(line):
            # Put back the escape of the line's first character.
            head = len(unescaped) - len(unescaped.lstrip())
            unescaped = f"{unescaped[:head]}\\{unescaped[head:]}"
        lines[number] = unescaped
    return "\n".join(lines)


def _token(match: re.Match[str]) -> str:
    if match.group("code") is not None:
        return match.group(0)
    if match.group("link") is not None:
        # The label's other characters are prose; its brackets stay escaped.
        label_end = match.group(0).rindex("](")
        label = _ESCAPED.sub(lambda m: _undone(m, keep="[]"), match.group(0)[:label_end])
        return _UNDERLINE.sub("", label) + match.group(0)[label_end:]
    if match.group("underline") is not None:
        return ""
    return _undone(match)


def _undone(match: re.Match[str], keep: str = "") -> str:
    """An escaped character (:data:`_ESCAPED`) without trafilatura's backslash, unless it
    is one to ``keep``; an even run of backslashes is the page's own and stays."""
    run, char = match.group("run"), match.group("char")
    if char in keep or len(run) % 2 == 0:
        return match.group(0)
    return "\\" * (len(run) // 2) + char
