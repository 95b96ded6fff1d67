"""Strings that can be written out: finding, and repairing, text UTF-8 cannot encode.

JSON may escape a lone UTF-16 surrogate (``"\\ud800"``); Python decodes it into a ``str``
that no UTF-8 writer accepts, so it would fail far from where it came in (encoding a
response, the audit log, a database row). Input is refused where it is validated
(:func:`unencodable`); text shown back to a person is repaired (:func:`printable`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

# In a Python ``str`` every surrogate is a lone one: a valid pair decodes to one character.
_SURROGATE = re.compile("[\ud800-\udfff]")


def encodable(text: str) -> bool:
    """Whether ``text`` can be written as UTF-8."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def unencodable(value: Any, schema: Mapping[str, Any] | None = None) -> str | None:
    """A message naming where ``value`` holds a string UTF-8 cannot encode, else ``None``.

    Lone UTF-16 surrogates (``"\\ud800"``) survive JSON decoding but cannot be written back
    out, so one that reached a response, the audit log or a confirmation would fail far from
    here. Fields are named only by the schema's own property names (a name the caller made up
    is caller text like any value); the string itself is never repeated.
    """
    # (item, label of the field, its schema node; None once outside the schema's names)
    stack: list[tuple[Any, str, Any]] = [(value, "", schema)]
    while stack:
        item, label, node = stack.pop()
        if isinstance(item, str):
            if not encodable(item):
                field = label or "arguments"
                return f"{field} is not valid text (it holds a lone surrogate); send UTF-8 text"
        elif isinstance(item, Mapping):
            properties = node.get("properties", {}) if isinstance(node, Mapping) else {}
            for key, child in item.items():
                if not isinstance(key, str) or not encodable(key):
                    where = f" in {label}" if label else ""
                    return f"an argument name{where} is not valid text; send UTF-8 text"
                if node is not None and key in properties:
                    stack.append((child, f"{label}.{key}" if label else key, properties[key]))
                else:
                    stack.append((child, "an unexpected field", None))
        elif isinstance(item, list):
            items = node.get("items") if isinstance(node, Mapping) else None
            for index, child in enumerate(item):
                child_label = f"{label}.{index}" if node is not None else label
                stack.append((child, child_label or "arguments", items))
    return None


def printable(value: Any) -> Any:
    """``value`` with every string (and key) UTF-8 cannot encode repaired to U+FFFD."""
    if isinstance(value, str):
        return value if encodable(value) else _SURROGATE.sub("\ufffd", value)
    if isinstance(value, Mapping):
        return {printable(key): printable(item) for key, item in value.items()}
    if isinstance(value, list):
        return [printable(item) for item in value]
    return value
