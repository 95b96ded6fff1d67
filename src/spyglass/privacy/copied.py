"""Runs of words copied from the conversation's private text into an outgoing string.

The private text is what the user wrote (and any non-web content in the conversation, such
as a pasted document). A run of ``n`` or more consecutive words of it — compared without
case, accents or punctuation — in a query or URL is reported with its length.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from spyglass.privacy.detectors import Finding, fold

_WORD = re.compile(r"[^\W_]+")
#: Addresses the user typed are not private text to guard: fetching them is the point.
_URL = re.compile(r"\b(?:https?://|www\.)\S+", re.IGNORECASE)


def words(text: str) -> list[tuple[str, int, int]]:
    """Folded words of ``text`` with their span in ``text``."""
    folded, origin = fold(text)
    return [(m.group(), origin[m.start()], origin[m.end() - 1] + 1) for m in _WORD.finditer(folded)]


class CopiedText:
    """Finds runs of at least ``n`` words of ``texts`` in other strings."""

    def __init__(self, texts: Iterable[str], n: int = 8) -> None:
        self.n = n
        self.grams: set[tuple[str, ...]] = set()
        for text in texts:
            sequence = [word for word, _, _ in words(_URL.sub(" ", text))]
            for index in range(len(sequence) - n + 1):
                self.grams.add(tuple(sequence[index : index + n]))

    def __bool__(self) -> bool:
        return bool(self.grams)

    def __call__(self, text: str) -> Iterator[Finding]:
        if not self.grams:
            return
        found = words(text)
        n = self.n
        run_start: int | None = None
        run_end = -1
        for index in range(len(found) - n + 1):
            if tuple(word for word, _, _ in found[index : index + n]) in self.grams:
                if run_start is None or index > run_end:
                    if run_start is not None:
                        yield self._finding(found, run_start, run_end)
                    run_start = index
                run_end = index + n - 1
        if run_start is not None:
            yield self._finding(found, run_start, run_end)

    @staticmethod
    def _finding(found: list[tuple[str, int, int]], first: int, last: int) -> Finding:
        count = last - first + 1
        return Finding(
            "copied_text", found[first][1], found[last][2], f"{count} words of your messages"
        )
