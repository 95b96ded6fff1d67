"""The untrusted envelope's tag, and keeping every spelling of it out of web text.

Web text reaches a model inside ``<untrusted_tool_output id="…">`` … ``</untrusted_tool_output
id="…">``. The random boundary already stops a page from closing the envelope, but a model
reads loosely: ``</UNTRUSTED_TOOL_OUTPUT>``, ``&lt;/untrusted tool output&gt;``, fullwidth
letters or zero-width characters between the letters all look like the tag to it. So the name
itself, in any of those spellings, is replaced in text from outside before it is wrapped.
"""

from __future__ import annotations

import re

TAG = "untrusted_tool_output"
REPLACEMENT = "[envelope tag removed]"

# One character that renders as nothing (zero-width, joiners, soft hyphen, BOM, bidi and
# variation controls), spelled out, as an entity or as a JSON/Python escape of anything.
_INVISIBLE_ONE = (
    r"[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
    r"\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0]"
    r"|\\u[0-9a-fA-F]{4}"
    r"|&#0*(?:173|8203|8204|8205|8288|65279);|&#[xX]0*(?:ad|200b|200c|200d|2060|feff);"
    r"|&(?:shy|zwj|zwnj|NoBreak);"
)
# What may stand between the words: also spaces, underscores, hyphens and dots.
_SEPARATOR_ONE = (
    r"[\s_\-.\u2010-\u2015\u00a0\u3000\uff3f\uff0d]"
    r"|&#0*(?:95|32|45|160);|&#[xX]0*(?:5f|20|2d|a0);|&(?:lowbar|UnderBar|nbsp|hyphen|dash);"
)
_INVISIBLE = f"(?:{_INVISIBLE_ONE})*"
_SEPARATOR = f"(?:{_SEPARATOR_ONE}|{_INVISIBLE_ONE})*"


def _letter(char: str) -> str:
    lower, upper = char.lower(), char.upper()
    options = [
        re.escape(lower),
        re.escape(upper),
        chr(ord(lower) - ord("a") + 0xFF41),  # fullwidth forms
        chr(ord(upper) - ord("A") + 0xFF21),
        f"&#0*{ord(lower)};",
        f"&#0*{ord(upper)};",
        f"&#[xX]0*{ord(lower):x};",
        f"&#[xX]0*{ord(upper):x};",
    ]
    return "(?:" + "|".join(options) + ")"


def _word(word: str) -> str:
    return _INVISIBLE.join(_letter(char) for char in word)


_NAME = re.compile(_SEPARATOR.join(_word(word) for word in TAG.split("_")), re.IGNORECASE)


def neutralise(text: str) -> str:
    """``text`` with every spelling of the envelope's tag name replaced."""
    return _NAME.sub(REPLACEMENT, text)


def contains_tag(text: str) -> bool:
    """Whether ``text`` holds the envelope's tag name in any spelling this module knows."""
    return _NAME.search(text) is not None
