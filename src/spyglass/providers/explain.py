"""A provider's own explanation of an error, as bounded plain text (or nothing).

Providers put it in different places: ``{"detail": {"error": ...}}`` and FastAPI-style
``{"detail": [{"msg": ...}, ...]}`` (Tavily), ``{"error": ...}`` (Firecrawl),
``{"message": ...}`` or ``{"detail": "..."}`` (others). Whatever is found is tags-stripped,
whitespace-folded and cut to 300 characters; a body that is not JSON gives nothing. The
caller scrubs keys; the text only reaches a model inside the untrusted-output envelope.
"""

from __future__ import annotations

from typing import Any

from spyglass import jsontext
from spyglass.providers.text import plain_text

EXPLANATION_CHARS = 300
_FIELDS = ("detail", "error", "message", "msg", "readableMessage")


def explain(body: bytes) -> str:
    """The explanation in a JSON error body, or ``""``."""
    try:
        data = jsontext.loads(body)
    except (UnicodeDecodeError, ValueError):
        return ""
    return explain_value(data)


def explain_value(value: Any) -> str:
    """The explanation inside an already decoded JSON value, or ``""``."""
    return explanation(_text(value, depth=0))


def explanation(text: object) -> str:
    """A provider's own error text as plain text of at most 300 characters (``""`` if none)."""
    if not isinstance(text, str) or not text:
        return ""
    return plain_text(text)[:EXPLANATION_CHARS]


def _text(value: Any, *, depth: int) -> str:
    if depth > 3:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        parts = [_text(item, depth=depth + 1) for item in value[:5]]
        return "; ".join(part for part in parts if part)
    if isinstance(value, dict):
        for name in _FIELDS:
            if name in value:
                found = _text(value[name], depth=depth + 1)
                if found:
                    return found
    return ""
