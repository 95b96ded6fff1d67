"""Runs of words copied from the conversation's private text into an outgoing string.

The private text is what the user wrote (and any non-web content in the conversation, such
as a pasted document). A run of ``n`` or more consecutive words of it — compared without
case, accents or punctuation — in a query or URL is reported with its length. Words need not
be kept apart: run together (``mylandlordat12elmstreet…``), CamelCased or joined by any
separator, a long enough run is found all the same.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Iterator

from spyglass.privacy.detectors import Finding, fold

_WORD = re.compile(r"[^\W_]+")
#: Addresses the user typed are not private text to guard: fetching them is the point.
_URL = re.compile(r"\b(?:https?://|www\.)\S+", re.IGNORECASE)
#: Letters per word a run must average to be matched with its words run together: shorter
#: runs ("1 2 3 4 5 6 7 8") written without gaps would be found inside unrelated numbers and
#: words.
LETTERS_PER_WORD = 3


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
        #: The runs again with their words run together, by their first ``width`` letters.
        self.width = LETTERS_PER_WORD * n
        self.joined: dict[str, set[str]] = defaultdict(set)
        for gram in self.grams:
            joined = "".join(gram)
            if len(joined) >= self.width:
                self.joined[joined[: self.width]].add(joined)

    def __bool__(self) -> bool:
        return bool(self.grams)

    def __call__(self, text: str) -> Iterator[Finding]:
        if not self.grams:
            return
        folded, origin = fold(text)
        found = [(m.group(), m.start(), m.end()) for m in _WORD.finditer(folded)]
        separate = list(self._separate(found, origin))
        yield from separate
        for finding in self._run_together(found, origin):
            if not any(s.start <= finding.start and finding.end <= s.end for s in separate):
                yield finding

    def _separate(self, found: list[tuple[str, int, int]], origin: list[int]) -> Iterator[Finding]:
        """Runs of whole words, each word as written."""
        n = self.n
        first: int | None = None
        last = -1
        for index in range(len(found) - n + 1):
            if tuple(word for word, _, _ in found[index : index + n]) in self.grams:
                if first is not None and index > last:
                    yield _finding(origin, found[first][1], found[last][2], last - first + 1)
                    first = None
                if first is None:
                    first = index
                last = index + n - 1
        if first is not None:
            yield _finding(origin, found[first][1], found[last][2], last - first + 1)

    def _run_together(
        self, found: list[tuple[str, int, int]], origin: list[int]
    ) -> Iterator[Finding]:
        """Runs found in the letters of the words with every gap between them closed."""
        if not self.joined:
            return
        squashed = "".join(word for word, _, _ in found)
        width = self.width
        first = last = -1
        grams = 0
        starts = self.joined.keys()
        ends = range(len(squashed) - width + 1)
        hits = [at for at in ends if squashed[at : at + width] in starts]
        if not hits:
            return
        # Where each letter of ``squashed`` is in the folded text.
        place = [index for _, start, end in found for index in range(start, end)]
        for at in hits:
            for joined in self.joined[squashed[at : at + width]]:
                if not squashed.startswith(joined, at):
                    continue
                if first >= 0 and at >= last:
                    yield _finding(origin, place[first], place[last - 1] + 1, self.n + grams - 1)
                    first = -1
                if first < 0:
                    first, grams = at, 0
                grams += 1
                last = max(last, at + len(joined))
        if first >= 0:
            yield _finding(origin, place[first], place[last - 1] + 1, self.n + grams - 1)


def _finding(origin: list[int], start: int, end: int, count: int) -> Finding:
    """The finding for folded characters ``[start, end)``, as a span of the original text."""
    return Finding(
        "copied_text", origin[start], origin[end - 1] + 1, f"{count} words of your messages"
    )
