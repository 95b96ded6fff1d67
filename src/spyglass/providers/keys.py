"""The owner's provider keys, kept out of anything shown.

A provider may echo a key back (in an error text, a result or a page); every configured key
is masked before a message or an answer leaves the capability.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

from spyglass.settings import MASK
from spyglass.settings.search import ProviderSettings


def keys_of(sections: Iterable[ProviderSettings]) -> list[str]:
    """The API keys set in ``sections`` (``search.<name>``, ``fetch.<name>`` tables)."""
    return [
        section.api_key.get_secret_value()
        for section in sections
        if section.api_key is not None and section.api_key.get_secret_value()
    ]


def redact(text: str, keys: Collection[str]) -> str:
    """``text`` with every key in ``keys`` replaced by the mask."""
    for key in keys:
        if key:
            text = text.replace(key, MASK)
    return text
