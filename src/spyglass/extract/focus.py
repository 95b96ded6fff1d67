"""Focused reading: the passages of a page's Markdown that best answer what the model looks for.

A small model cannot afford a whole page: given what it wants to find (a question or key
terms) and a character budget, :func:`focused` returns a short outline of the page (its
headings with their character offsets), then the passages that answer best, in page order,
each marked with its offset, with a visible mark wherever text was left out.

Passages are cut so that Markdown survives (:mod:`spyglass.extract.passages`: prose by
sentences, tables by rows with their header, lists by items, code inside its fence). They
are ranked by BM25 (the ``bm25s`` library): the page's paragraphs first, then the passages of
the best paragraphs, each with a share of its paragraph's score and, as a second and lighter
field, its section heading's. What word matching misses is helped too: the passages next to a
strong one (an answer often sits a sentence from the words of the question) and, for
who/what/when questions and bare key terms, the page's lead (its opening paragraph, where
definitions and dates sit).

All of this runs on the device, after the page is read: the focus is never sent anywhere.
"""

from __future__ import annotations

import bisect
import functools
import re
from dataclasses import dataclass

from spyglass.extract.passages import Heading, Passage, cut

#: The outline takes at most this share of the budget.
OUTLINE_SHARE = 0.15
#: BM25's parameters (the usual ones), and the weight of a heading's words against the body's.
K1 = 1.2
B = 0.75
HEADING_WEIGHT = 0.5
#: Passages are ranked within this many of the best-scored paragraphs, and each gets this
#: share of its paragraph's score.
CANDIDATE_BLOCKS = 10
PARAGRAPH_SHARE = 0.3
#: A passage's score is raised by this share of its best neighbour's.
NEIGHBOUR_SHARE = 0.35
#: The lead's share of the budget when the focus asks who/what/when or names bare terms.
LEAD_SHARE = 0.12

_WORD = re.compile(r"\w+", re.UNICODE)
_LEAD_QUESTION = re.compile(
    r"^\W*(?:(?:who|whom|whose|when|where)\b|(?:what|which)\s+(?:is|are|was|were)(?:\W+\w+){1,4}\W*$)",
    re.IGNORECASE,
)

_STOPWORDS = frozenset(
    """a an and are as at be been being but by can could did do does for from had has have
    how i if in into is it its may might of on or should so than that the their them then
    there these they this those to was we were what when where which while who whom whose
    why will with would you your about after before also any each many much more most not
    other over some such only own same very just do did does done name named called kind
    type""".split()  # noqa: SIM905 (a word list reads better as prose)
)


@dataclass(frozen=True)
class FocusedRead:
    """What a focused read returns: ``text`` to hand the model, ``left_out`` characters of
    ``total_chars`` not in it (0 when the page came back whole)."""

    text: str
    left_out: int
    total_chars: int


def focused(text: str, focus: str, budget: int, base: int = 0) -> FocusedRead:
    """The read of ``text`` focused on ``focus``, at most ``budget`` characters long.

    ``text`` shorter than the budget comes back whole. Offsets in the outline and the
    passage marks count from the start of the page; ``base`` is where ``text`` starts in it.
    """
    total = len(text)
    if total <= budget:
        return FocusedRead(text, 0, total)
    headings, passages = cut(text)
    outline = _outline(headings, base, int(budget * OUTLINE_SHARE))
    scores = _scores(text, passages, headings, _terms(focus))
    lead = _lead(passages, headings) if _wants_lead(focus) else []
    room = budget - len(outline) - len(_footer(total, total))
    chosen = _choose(passages, scores, lead, room, int(budget * LEAD_SHARE), base)
    while True:
        body, shown = _render(text, passages, chosen, base, total)
        left_out = total - shown
        result = f"{outline}{body}{_footer(left_out, total)}"
        if len(result) <= budget or not chosen:
            return FocusedRead(result, left_out, total)
        # The marks were estimated: drop the weakest passage until the read fits.
        chosen.remove(min(chosen, key=lambda i: scores[i]))


def terms(text: str) -> list[str]:
    """``text``'s words as the ranking compares them: lower case, stop words dropped, a
    plural's or a verb form's common ending taken off."""
    return [_stem(w) for w in _WORD.findall(text.lower()) if w not in _STOPWORDS]


def _terms(focus: str) -> list[str]:
    words = terms(focus)
    # A focus of only stop words ("what is it?") still ranks by what it has.
    return words or [_stem(w) for w in _WORD.findall(focus.lower())]


@functools.lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    if len(word) <= 4 or word.isdigit():
        return word
    for ending in ("ingly", "edly", "ings", "ing", "ies", "ied", "ed", "ly", "s"):
        if word.endswith(ending) and len(word) - len(ending) >= 3:
            stem = word[: -len(ending)]
            return stem + "y" if ending in ("ies", "ied") else stem
    return word


def _wants_lead(focus: str) -> bool:
    """A who/what/when question, or bare key terms: the page's opening often answers them
    (a definition, a date, an infobox) in words the focus does not share."""
    if _LEAD_QUESTION.match(focus):
        return True
    return "?" not in focus and len(_WORD.findall(focus)) <= 4


# --- ranking ---------------------------------------------------------------------------


def _scores(
    text: str, passages: list[Passage], headings: list[Heading], query: list[str]
) -> list[float]:
    """Each passage's score: BM25 over the page's paragraphs first, then over the passages of
    the best :data:`CANDIDATE_BLOCKS` of them, plus a share of the paragraph's score (an
    answer often sits one sentence from the words of the question) and a lighter BM25 of its
    section's heading (a second field); then raised by a share of its best neighbour's."""
    if not passages or not query:
        return [0.0] * len(passages)
    wanted = set(query)
    counts: list[dict[str, int]] = [{} for _ in passages]
    starts = [passage.start for passage in passages]
    for term, at in _occurrences(text, wanted):
        i = bisect.bisect_right(starts, at) - 1
        if i >= 0 and at < passages[i].end:
            counts[i][term] = counts[i].get(term, 0) + 1
    lengths = [text.count(" ", p.start, p.end) + 1 for p in passages]
    block_counts: list[dict[str, int]] = [{} for _ in range(passages[-1].block + 1)]
    block_lengths = [0] * len(block_counts)
    for p, tf, length in zip(passages, counts, lengths, strict=True):
        block_lengths[p.block] += length
        for t, f in tf.items():
            block_counts[p.block][t] = block_counts[p.block].get(t, 0) + f
    blocks = _bm25(block_counts, block_lengths)
    best = set(sorted(range(len(blocks)), key=lambda j: -blocks[j])[:CANDIDATE_BLOCKS])
    # Passages are ranked among the best paragraphs' only: a word the page uses everywhere
    # weighs little there, and the index stays small (a focused read must cost little).
    candidates = [i for i, p in enumerate(passages) if p.block in best]
    ranked = dict(
        zip(
            candidates,
            _bm25([counts[i] for i in candidates], [lengths[i] for i in candidates]),
            strict=True,
        )
    )
    titles = [terms(h.title) for h in headings]
    heading = _bm25(
        [{t: title.count(t) for t in wanted if t in title} for title in titles],
        [len(title) for title in titles],
    )
    raw = [
        ranked.get(i, 0.0)
        + PARAGRAPH_SHARE * blocks[p.block]
        + (HEADING_WEIGHT * heading[p.section] if p.section >= 0 else 0.0)
        for i, p in enumerate(passages)
    ]
    n = len(passages)
    scores = []
    for i, score in enumerate(raw):
        before = raw[i - 1] if i > 0 and passages[i - 1].section == passages[i].section else 0
        after = raw[i + 1] if i + 1 < n and passages[i + 1].section == passages[i].section else 0
        scores.append(score + NEIGHBOUR_SHARE * max(before, after))
    return scores


def _occurrences(text: str, wanted: set[str]) -> list[tuple[str, int]]:
    """Where the words whose stems are ``wanted`` start in ``text``.

    Each term is looked for as a literal prefix, then the whole word's stem is checked: a
    few fast scans rather than tokenising the page (a focused read must cost little beside
    reading the page).
    """
    low = text.lower()
    # Lower case changes the length of a few characters (a dotted capital I): search the
    # text itself then, ignoring case, which is slower.
    haystack, flags = (low, 0) if len(low) == len(text) else (text, re.IGNORECASE)
    found = []
    for term in wanted:
        for match in re.finditer(re.escape(term) + r"\w*", haystack, flags):
            at = match.start()
            if at and (haystack[at - 1].isalnum() or haystack[at - 1] == "_"):
                continue  # inside a word
            if _stem(match.group().lower()) == term:
                found.append((term, at))
    return found


def _bm25(counts: list[dict[str, int]], lengths: list[int]) -> list[float]:
    """BM25 (bm25s, Lucene's variant) of each document for the focus's terms, given each
    document's counts of them and its length in words.

    Only the focus's words are indexed: every other word of a document is one shared
    placeholder, which keeps each document's length (and so BM25's normalisation) while the
    page is never tokenised in full (a focused read must cost little beside reading it).
    """
    present = sorted({t for tf in counts for t in tf})
    if not present or not counts:
        return [0.0] * len(counts)
    # Imported for a focused read only: it brings scipy's sparse matrices.
    import bm25s

    vocab = {"": 0} | {t: i + 1 for i, t in enumerate(present)}
    docs = []
    for tf, length in zip(counts, lengths, strict=True):
        ids = [vocab[t] for t, c in tf.items() for _ in range(c)]
        docs.append(ids + [0] * max(0, length - len(ids)))
    index = bm25s.BM25(k1=K1, b=B, method="lucene")
    index.index((docs, vocab), create_empty_token=False, show_progress=False)
    scores: list[float] = index.get_scores([vocab[t] for t in present]).tolist()
    return scores


def _lead(passages: list[Passage], headings: list[Heading]) -> list[int]:
    """The page's opening passages: before the second heading, at most two."""
    limit = headings[1].offset if len(headings) > 1 else None
    return [i for i, p in enumerate(passages[:2]) if limit is None or p.start < limit]


# --- choosing and showing --------------------------------------------------------------


def _cost(passage: Passage, base: int) -> int:
    return passage.end - passage.start + len(passage.prefix) + len(_mark(passage.start + base))


def _choose(
    passages: list[Passage],
    scores: list[float],
    lead: list[int],
    room: int,
    lead_room: int,
    base: int,
) -> list[int]:
    """Passages best first while they fit in ``room`` (with their marks and the gaps'),
    the lead first within ``lead_room``; in page order."""
    chosen: set[int] = set()
    used = 0
    gap = len(_GAP)
    for i in lead:
        cost = _cost(passages[i], base) + gap
        if used + cost > lead_room:
            break
        chosen.add(i)
        used += cost
    order = sorted(range(len(passages)), key=lambda i: (-scores[i], i))
    for i in order:
        if scores[i] <= 0 and chosen:
            break
        if i in chosen:
            continue
        cost = _cost(passages[i], base) + gap
        if used + cost <= room:
            chosen.add(i)
            used += cost
    # Room left: the neighbours of what was chosen, best-scored first, then the page's start.
    for i in sorted(chosen.copy(), key=lambda i: -scores[i]):
        for j in (i + 1, i - 1):
            if 0 <= j < len(passages) and j not in chosen:
                cost = passages[j].end - passages[j].start + len(passages[j].prefix)
                if used + cost <= room:
                    chosen.add(j)
                    used += cost
    return sorted(chosen)


#: Where text was left out: short, since a small budget holds several of them.
_GAP = "\n[…]\n\n"


def _mark(offset: int) -> str:
    return f"[at {offset}]\n"


def _footer(left_out: int, total: int) -> str:
    return f"\n[…]\n[{left_out:,} of {total:,} characters left out; offset reads any part]"


def _render(
    text: str, passages: list[Passage], chosen: list[int], base: int, total: int
) -> tuple[str, int]:
    """The chosen passages in page order, adjacent ones joined, gaps marked; with how many
    of the page's characters they show."""
    pieces: list[str] = []
    shown = 0
    at = 0  # where the text shown so far ends
    for i in chosen:
        passage = passages[i]
        start = passage.start
        if pieces and start > at and not text[at:start].strip():
            start = at  # only blank lines between: the passages read on as one
        if start > at or not pieces:
            if start > at:
                pieces.append(_GAP)
            pieces.append(_mark(start + base))
            pieces.append(passage.prefix)
        else:
            start = at
        pieces.append(text[start : passage.end])
        if passage.suffix:
            pieces.append(passage.suffix)
        shown += passage.end - start
        at = passage.end
    return "".join(pieces), shown


def _outline(headings: list[Heading], base: int, room: int) -> str:
    """The page's headings with their offsets, shallow levels first while they fit."""
    if len(headings) < 2:
        return ""
    lines = {
        i: f"{'  ' * (h.level - 1)}- {h.title[:80]} [at {h.offset + base}]\n"
        for i, h in enumerate(headings)
    }
    head = "Outline:\n"
    kept: set[int] = set()
    used = len(head) + 1
    for level in sorted({h.level for h in headings}):
        for i, h in enumerate(headings):
            if h.level == level and used + len(lines[i]) <= room:
                kept.add(i)
                used += len(lines[i])
    if not kept:
        return ""
    return head + "".join(lines[i] for i in sorted(kept)) + "\n"
