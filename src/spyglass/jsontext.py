"""Reading JSON that arrives from outside: a model, a provider, a client, a page, a file.

:func:`loads` is :func:`json.loads`, except that text nested deeper than Python's recursion
reads (``[`` a hundred thousand times) raises the :class:`json.JSONDecodeError` every caller
already handles as "not JSON", instead of a ``RecursionError`` nobody expects: one such line
on the MCP server's stdin ended the server, one in a page's JSON-LD ended the fetch.
"""

from __future__ import annotations

import json
from typing import Any

#: What a too-deep text is said to be, as a JSONDecodeError's message.
TOO_DEEP = "nests deeper than can be read"


def loads(text: str | bytes) -> Any:
    """The JSON value of ``text``; raises :class:`json.JSONDecodeError` (a ValueError) when it
    is not JSON or nests too deeply to read."""
    try:
        return json.loads(text)
    except RecursionError:
        shown = text if isinstance(text, str) else text.decode("utf-8", "replace")
        raise json.JSONDecodeError(TOO_DEEP, shown, 0) from None
