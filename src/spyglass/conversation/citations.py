"""Sources of a reply: search results and fetched pages, http/https only, deduplicated.

Each source of a turn has a number, in the order it was found (1, 2, ...): the model sees it
next to each search result and page (``"cite": "[2]"``) and is asked to cite by it. The
answer's own markers (``[2]``, ``[1, 3]``, ``【2】``, ``[^2]``) then say which sources it used:
:meth:`Citations.for_answer` marks each ``cited`` or not.
"""

from __future__ import annotations

import re
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

    def number(self, url: Any) -> int | None:
        """The number of the source at ``url`` (from 1), or None when it is not one."""
        checked = _web_url(url)
        if checked is None or checked not in self._items:
            return None
        return list(self._items).index(checked) + 1

    def numbered(self, outcome: Outcome) -> dict[str, Any] | None:
        """``outcome``'s result as the model is given it: each search result and the page
        with its number to cite (``"cite": "[n]"``) first. None when nothing is numbered."""
        result = outcome.result
        if not outcome.ok or not isinstance(result, dict):
            return None
        if outcome.capability == "web.search" and isinstance(result.get("results"), list):
            hits = []
            for hit in result["results"]:
                n = self.number(hit.get("url")) if isinstance(hit, dict) else None
                hits.append({"cite": f"[{n}]", **hit} if n is not None else hit)
            return {**result, "results": hits}
        if outcome.capability == "web.fetch":
            n = self.number(result.get("final_url") or result.get("url"))
            if n is not None:
                return {"cite": f"[{n}]", **result}
        return None

    def for_answer(self, answer: str) -> list[dict[str, Any]]:
        """Every source with its number ``n`` and whether ``answer`` cites it (``cited``)."""
        marked = cited_numbers(answer)
        return [
            {**item, "n": n, "cited": n in marked}
            for n, item in enumerate(self._items.values(), start=1)
        ]


#: A citation marker: [2], [1, 3], [^2] (a footnote) or 【2】 (as some models write it).
_MARKER = re.compile(r"(?:\[\^?|【)(\d{1,3}(?:\s*[,;]\s*\^?\d{1,3})*)(?:\]|】)")


def cited_numbers(answer: str) -> set[int]:
    """The source numbers ``answer`` cites with its markers."""
    numbers: set[int] = set()
    for match in _MARKER.finditer(answer):
        numbers.update(int(part.strip().lstrip("^")) for part in re.split(r"[,;]", match[1]))
    return numbers
