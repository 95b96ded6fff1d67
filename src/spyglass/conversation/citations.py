"""Sources of a reply: search results and fetched pages, http/https only, deduplicated."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from spyglass.core.outcome import Outcome


def _web_url(value: Any) -> str | None:
    if not isinstance(value, str) or len(value) > 2048:
        return None
    try:
        parts = urlsplit(value)
    except ValueError:
        return None
    return value if parts.scheme in ("http", "https") and parts.netloc else None


class Citations:
    """An ordered set of ``{url, title}`` keyed by URL."""

    def __init__(self, items: list[dict[str, Any]] | None = None) -> None:
        self._items: dict[str, dict[str, Any]] = {}
        for item in items or []:
            self.add(item.get("url"), item.get("title"))

    def add(self, url: Any, title: Any) -> None:
        checked = _web_url(url)
        if checked is None or checked in self._items:
            return
        self._items[checked] = {"url": checked, "title": title if isinstance(title, str) else None}

    def add_outcome(self, outcome: Outcome) -> None:
        result = outcome.result
        if not outcome.ok or result is None:
            return
        if outcome.capability == "web.search":
            for hit in result.get("results") or []:
                if isinstance(hit, dict):
                    self.add(hit.get("url"), hit.get("title"))
        elif outcome.capability == "web.fetch" and not (
            result.get("redirected") and not result.get("text")
        ):
            # A cross-site redirect was not read (it needs a new approval): not a source.
            self.add(result.get("final_url") or result.get("url"), result.get("title"))

    def to_list(self) -> list[dict[str, Any]]:
        return list(self._items.values())
