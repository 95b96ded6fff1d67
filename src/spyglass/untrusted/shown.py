"""A call's arguments as a person approving it sees them: never able to pass for Spyglass's words.

The arguments of a call come from a model (or from the web through one), and the approval
text around them is Spyglass's own. Shown raw, an argument could end the line it sits on
(newlines push the rest out of view, then a fake "(no private data found)" reads as
Spyglass's), hide characters (zero-width, tag and variation characters carry text nobody
sees), turn the text around (a right-to-left override), render as Markdown or HTML in a
host that renders its dialog, or name a look-alike host (Cyrillic ``а`` in ``аpple.com``).

So every front end (the CLI prompt, the MCP elicitation, the console card through the
notices on the wire) shows an argument through here:

* :func:`quoted` writes it between double quotes, every character that would not show as an
  escape (``\\n``, ``\\u202e``) and ``"`` and ``\\`` escaped, so the value is one bounded line
  that reads back to exactly what is sent (it is a valid Python string literal);
* :func:`code` puts that in a Markdown code span, for hosts that render Markdown;
* :func:`notices` says what was escaped, and gives a URL's host name in its ASCII (IDNA)
  form, warning when its letters mix scripts as look-alike addresses do.

The console cannot use escaped text (its highlights count characters of the value as sent):
it draws the same characters as escapes itself, and shows these notices.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections import Counter
from collections.abc import Iterator, Mapping
from typing import Any
from urllib.parse import urlsplit

from spyglass.core.attempt import WARNING_PREFIX
from spyglass.core.outcome import Notice

#: Notice kinds; ``shown.`` notices are warnings, shown with the privacy findings.
KIND_PREFIX = WARNING_PREFIX
HIDDEN = KIND_PREFIX + "hidden"
HOST = KIND_PREFIX + "host"

#: General categories that never show as a glyph of their own: controls (C0, C1), format
#: characters (bidi controls, zero-width, tags), private use, unassigned, surrogates, line
#: and paragraph separators.
_INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Co", "Cn", "Cs", "Zl", "Zp"})

#: Letters and marks that draw nothing (Hangul fillers, the combining grapheme joiner,
#: variation selectors, which can carry hidden bytes after any character).
_BLANK = re.compile(
    "[\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u3164\ufe00-\ufe0f\uffa0\U000e0100-\U000e01ef]"
)

_SHORT_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\\": "\\\\", '"': '\\"'}

#: What a person is told an escaped character is, for the commonest ones.
_NAMES = {
    "\n": "line break",
    "\r": "carriage return",
    "\t": "tab",
    "\u2028": "line separator",
    "\u2029": "paragraph separator",
    "\u0085": "next-line control",
    "\u200b": "zero-width space",
    "\u200c": "zero-width non-joiner",
    "\u200d": "zero-width joiner",
    "\u2060": "word joiner",
    "\ufeff": "zero-width no-break space",
    "\u00ad": "soft hyphen",
    "\u00a0": "no-break space",
}
_BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")

#: Scripts a single host label may mix (UTS #39 "highly restrictive"): Japanese, Chinese and
#: Korean names are written with Han and their own scripts, and Latin may join any of them.
_ALLOWED_MIXES = (
    frozenset({"LATIN", "HAN", "HIRAGANA", "KATAKANA"}),
    frozenset({"LATIN", "HAN", "BOPOMOFO"}),
    frozenset({"LATIN", "HAN", "HANGUL"}),
)
#: Words in a character's name that come before its script's name.
_NAME_PREFIXES = frozenset({"FULLWIDTH", "HALFWIDTH", "MATHEMATICAL", "SMALL", "CIRCLED"})


def hidden(char: str) -> bool:
    """Whether ``char`` would not show as itself: an invisible, control or format character,
    or a space other than the ordinary one (U+0020)."""
    category = unicodedata.category(char)
    if category in _INVISIBLE_CATEGORIES or _BLANK.match(char):
        return True
    return category == "Zs" and char != " "


def escape(char: str) -> str:
    """``char`` written as an escape: ``\\n``, ``\\t``, ``\\u202e``, ``\\U000e0041``."""
    short = _SHORT_ESCAPES.get(char)
    if short is not None:
        return short
    point = ord(char)
    return f"\\u{point:04x}" if point <= 0xFFFF else f"\\U{point:08x}"


def visible(text: str) -> str:
    """``text`` with every hidden character, ``\\`` and ``"`` written as an escape."""
    return "".join(escape(c) if c in _SHORT_ESCAPES or hidden(c) else c for c in text)


def quoted(value: Any) -> str:
    """``value`` between double quotes (:func:`visible`); lists item by item, other values as
    JSON. One line, and it reads back exactly (``ast.literal_eval``) for a string."""
    if isinstance(value, str):
        return f'"{visible(value)}"'
    if isinstance(value, list | tuple):
        return "[" + ", ".join(quoted(item) for item in value) + "]"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{quoted(str(k))}: {quoted(v)}" for k, v in value.items()) + "}"
    return visible(json.dumps(value, ensure_ascii=False))


def code(value: Any) -> str:
    """:func:`quoted` inside a Markdown code span, so a host that renders its dialog as
    Markdown shows the characters themselves (no emphasis, links, images or HTML). Numbers,
    booleans and null carry no text, and are written as they are."""
    if value is None or isinstance(value, bool | int | float):
        return json.dumps(value)
    text = quoted(value)
    longest = max((len(run) for run in re.findall("`+", text)), default=0)
    fence = "`" * (longest + 1)
    # One space inside each fence, which CommonMark takes off again, lets the text start or
    # end with a backtick.
    return f"{fence} {text} {fence}"


#: Characters Markdown (or HTML inside it) can give meaning to inside a line.
_MARKDOWN = re.compile(r"[\\`*\[\]<>&~|]|(?<![0-9A-Za-z])_|_(?![0-9A-Za-z])")


def inert(text: str) -> str:
    """``text`` with its hidden characters escaped and Markdown's active characters
    backslash-escaped: for words of a notice that may quote outside text (a search's query in
    "result 3 of your search ..."), in a host that may render Markdown."""
    # Markdown first: the backslash of an escape like \n is before a letter, which Markdown
    # leaves as it is.
    return plain(_MARKDOWN.sub(lambda m: "\\" + m.group(0), text))


def plain(text: str) -> str:
    """``text`` with its hidden characters escaped, nothing else changed: for words of a
    notice that may quote outside text, on a terminal."""
    return "".join(escape(c) if hidden(c) else c for c in text)


# -- what the person is told --------------------------------------------------------------


def notices(arguments: Mapping[str, Any]) -> list[Notice]:
    """Warnings for the approval of a call with these arguments: which hidden characters an
    argument holds (shown as escapes), and a host name that is not plain ASCII, in a URL or
    as an entry of a list of domains (``include_domains``)."""
    found: list[Notice] = []
    for name, text, listed in _strings(arguments):
        said = _hidden_notice(name, text)
        if said is not None:
            found.append(said)
        if re.match(r"https?://", text, re.IGNORECASE):
            said = host_notice(name, text)
        elif listed and _DOMAIN.match(text):
            said = _host_said(name, text.removeprefix("*."), None)
        else:
            said = None
        if said is not None:
            found.append(said)
    return found


#: A list entry that reads as a domain name (``example.com``, ``*.bücher.de``).
_DOMAIN = re.compile(r"^[^\s/:@?#\[\]]+\.[^\s/:@?#\[\]]+$")


def _strings(arguments: Mapping[str, Any]) -> Iterator[tuple[str, str, bool]]:
    """Each string argument, and each string in a list argument (``True``)."""
    for name, value in arguments.items():
        if isinstance(value, str):
            yield str(name), value, False
        elif isinstance(value, list):
            yield from ((str(name), item, True) for item in value if isinstance(item, str))


def describe(char: str) -> str:
    """``"line break (U+000A)"``, ``"right-to-left override (U+202E)"``."""
    name = _NAMES.get(char)
    if name is None:
        official = unicodedata.name(char, "")
        if char in _BIDI:
            name = official.lower() if official else "direction control"
        elif "\U000e0000" <= char <= "\U000e007f":
            name = "tag character"
        elif _BLANK.match(char) and "VARIATION SELECTOR" in official:
            name = "variation selector"
        else:
            name = official.lower() or f"{unicodedata.category(char)} character"
    return f"{name} (U+{ord(char):04X})"


def _hidden_notice(name: str, text: str) -> Notice | None:
    positions = [i for i, c in enumerate(text) if hidden(c)]
    if not positions:
        return None
    counts = Counter(text[i] for i in positions)
    parts = [f"{n} × {describe(c)}" if n > 1 else describe(c) for c, n in counts.most_common(4)]
    if len(counts) > 4:
        parts.append(f"{len(counts) - 4} more kinds")
    bidi = ", some of which reorder the text around them" if any(c in _BIDI for c in counts) else ""
    examples = ", ".join(dict.fromkeys(escape(c) for c in counts))
    return Notice(
        HIDDEN,
        f"holds characters that do not show{bidi}: {'; '.join(parts)}; written here as {examples}",
        argument=name,
    )


def host_span(url: str) -> tuple[int, int] | None:
    """Where the host name sits in ``url`` (code points), without user info or port."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    if not parts.netloc:
        return None
    start = url.find("//") + 2
    netloc = parts.netloc
    at = netloc.rfind("@") + 1
    host = netloc[at:]
    if not host.startswith("["):
        colon = host.rfind(":")
        if colon >= 0:
            host = host[:colon]
    if not host:
        return None
    return start + at, start + at + len(host)


def host_notice(name: str, url: str) -> Notice | None:
    """For a URL whose host name is not plain ASCII: its ASCII (IDNA) form, which is what is
    looked up and contacted, and whether its letters mix scripts the way look-alike names
    (``аpple.com`` with a Cyrillic ``а``) do. ``None`` for an ASCII host."""
    span = host_span(url)
    if span is None:
        return None
    return _host_said(name, url[span[0] : span[1]], span)


def _host_said(name: str, host: str, span: tuple[int, int] | None) -> Notice | None:
    if host.isascii():
        return None
    from spyglass.net.hostnames import HostnameError, normalise

    try:
        ascii_form = normalise(host)
    except HostnameError:
        message = "has a host name with characters no international domain name can have"
    else:
        mixed = mixed_scripts(host)
        if mixed:
            message = (
                f"has a host name that mixes {' and '.join(mixed)} letters, as look-alike "
                f"addresses do; in ASCII it is {ascii_form}"
            )
        else:
            message = f"has a host name that is not plain ASCII; in ASCII it is {ascii_form}"
    start, end = span if span is not None else (None, None)
    return Notice(HOST, message, argument=name, start=start, end=end)


def script(char: str) -> str | None:
    """The script of a letter, read from its Unicode name (``"CYRILLIC"``, ``"LATIN"``,
    ``"HAN"``); ``None`` for anything but a letter (digits, hyphens, marks go with any)."""
    if not unicodedata.category(char).startswith("L"):
        return None
    words = unicodedata.name(char, "").split()
    while words and words[0] in _NAME_PREFIXES:
        words = words[1:]
    if not words:
        return "UNKNOWN"
    # "KATAKANA-HIRAGANA PROLONGED SOUND MARK" belongs with either.
    first = words[0].split("-")[0]
    return "HAN" if first == "CJK" else first


def mixed_scripts(host: str) -> list[str]:
    """The scripts (title case, in order of appearance) of the first label of ``host`` that
    mixes scripts no single language writes together; empty when none does."""
    for label in host.split("."):
        seen = list(dict.fromkeys(s for s in map(script, label) if s is not None))
        if len(seen) > 1 and not any(set(seen) <= allowed for allowed in _ALLOWED_MIXES):
            return [s.title() for s in seen]
    return []


__all__ = [
    "HIDDEN",
    "HOST",
    "KIND_PREFIX",
    "code",
    "describe",
    "escape",
    "hidden",
    "host_notice",
    "host_span",
    "inert",
    "mixed_scripts",
    "notices",
    "plain",
    "quoted",
    "script",
    "visible",
]
