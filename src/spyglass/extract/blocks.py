"""Splitting a reading into blocks and describing each one, for the boilerplate model.

A block is one Markdown line (a paragraph, heading or list item), a whole fenced code block
or a whole table, so code and tables are kept or dropped as units and never cut in half.
Each block is described by where it sits (position, what comes after the last long
paragraph, the heading it sits under), what it looks like (words, links, punctuation,
Markdown kind) and whether the other readings of the page contain it too: a line that
trafilatura's article, the main region and the enclosing block all keep is rarely
boilerplate; related stories and newsletter boxes after the article rarely appear in all.
"""

from __future__ import annotations

import math
import re
import string
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from itertools import islice
from typing import Protocol

from spyglass.extract.block_markup import PLACE_FEATURES
from spyglass.extract.links import link_label_chars, without_targets
from spyglass.extract.readings import KINDS, collapse_blank_runs
from spyglass.extract.words import pieces

#: A line of nothing but spaces and tabs (a page's indentation between paragraphs).
_SPACES_ONLY = re.compile(r"^[ \t]+$", re.MULTILINE)
#: A heading's marker followed by more (a heading the page nested in another one).
_MARKERS = re.compile(r"^(#{1,6} )(?:#{1,6} )+", re.MULTILINE)
_PUNCTUATION = bytes.maketrans(string.punctuation.encode(), b" " * len(string.punctuation))
# A link's target, which holds no words of the block (a cheaper cut than the full syntax):
# "](target)" -> "]". Group 2 is a "](" whose target has no ")" on its line, written back
# whole: no later "](" on that line can close either, and reading the rest of the line
# again from each would take time growing with its square.
_TARGET = re.compile(r"(\])(?:\((?:<[^>\n]*>|[^)\n]*)\)|(\([^)\n]*))")
_DIGIT = re.compile(r"\d")
_DIGIT_BYTES = string.digits.encode()
#: Words that name the boxes around an article — related reading, subscribing and following,
#: sharing, comments, advertising, the site's small print — in the languages most pages are
#: written in (English, German, French, Spanish, Portuguese, Italian, Dutch, Polish); a
#: feature, the model weighs them. Lower case: :func:`names_a_box` searches lower-cased text,
#: four times faster than the same search ignoring case (the same answers on all 1.2 million
#: lines of the training corpora's readings).
BOILERPLATE_WORDS = re.compile(
    r"\b(related|recommended|popular|trending|more from|read (?:more|next|also)|"
    r"see also|you (?:may|might) also|newsletter|subscri(?:be|bers?|ption)|sign up|follow|"
    r"share|comments?|advertis\w*|sponsored|tags?|categories|about the author|author|"
    r"copyright|all rights reserved|reprint|cookies?|privacy|log ?in|sign in|previous|next|"
    r"twitter|facebook|instagram|youtube|telegram|whatsapp|linkedin|download (?:the|our) app|"
    r"weitere|verwandte|teilen|kommentare?|newsletter abonnieren|lesen sie auch|abonn\w+|"
    r"mehr (?:zum thema|von|dazu)|auch interessant|könnte sie auch interessieren|"
    r"zum weiterlesen|folgen sie|anzeige|"
    r"articles? (?:similaires|connexes)|partager|commentaires?|lire (?:aussi|la suite)|"
    r"suivez|publicité|"
    r"le[ae] (?:también|más)|(?:notas|noticias|artículos) relacionad[oa]s|más sobre|"
    r"suscr[ií]b\w*|síguenos|compartir|comentarios?|publicidad|únete|"
    r"leia (?:também|mais)|compartilh\w*|assine|comentários?|publicidade|"
    r"leggi anche|articoli correlati|condividi|iscriviti|commenti|pubblicità|"
    r"lees (?:ook|meer)|gerelateerd\w*|delen|reacties?|advertentie|"
    r"czytaj (?:też|także|więcej)|zobacz (?:też|także)|udostępnij|komentarze)\b"
)


def names_a_box(text: str) -> bool:
    """Whether ``text`` has one of the :data:`BOILERPLATE_WORDS`, in any case."""
    return BOILERPLATE_WORDS.search(text.lower()) is not None


#: A line of at least this many words is a paragraph of running text.
LONG_WORDS = 25
#: Blocks of at most this many words are searched for boilerplate names.
SHORT_WORDS = 30
#: A reading shorter than this many characters is kept whole: a page of a few lines (a
#: price and a button) has nothing around its content to leave out.
KEEP_WHOLE_CHARS = 200
#: A reading with fewer words than this is not content but what a page shows around none (a
#: skip link, a script's "enable JavaScript", a shop's search prompt): the body is then
#: empty and the reader gets the page's description. A filter that would leave fewer than
#: this of a longer reading leaves it whole.
LEAST_WORDS = 10
#: Characters of the scripts written without spaces between words (Chinese, Japanese): each
#: counts as a word, so a sentence in them is never "fewer than ten words".
_UNSPACED = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


class Placer(Protocol):
    """Describes a block by where its text sits in the page
    (:class:`spyglass.extract.block_markup.Places`)."""

    def row(self, markdown: str) -> list[float]:
        """The :data:`~spyglass.extract.block_markup.PLACE_FEATURES` of one block."""
        ...


@dataclass(frozen=True, slots=True)
class Block:
    text: str
    kind: str  # "text", "heading", "item", "table", "code", "quote"


def split_blocks(markdown: str) -> list[Block]:
    """``markdown`` as blocks; joining their texts with newlines gives it back."""
    blocks: list[Block] = []
    lines = markdown.split("\n")
    index = 0
    while index < len(lines):
        line = lines[index]
        stripped = line.lstrip()
        if stripped.startswith("```"):
            end = index + 1
            while end < len(lines) and not lines[end].lstrip().startswith("```"):
                end += 1
            blocks.append(Block("\n".join(lines[index : end + 1]), "code"))
            index = end + 1
            continue
        if stripped.startswith("|"):
            end = index
            while end + 1 < len(lines) and lines[end + 1].lstrip().startswith("|"):
                end += 1
            blocks.append(Block("\n".join(lines[index : end + 1]), "table"))
            index = end + 1
            continue
        blocks.append(Block(line, _kind(stripped)))
        index += 1
    return blocks


def _kind(line: str) -> str:
    if line.startswith("#"):
        return "heading"
    if line.startswith(("- ", "* ", "+ ")) or re.match(r"\d+[.)] ", line):
        return "item"
    if line.startswith(">"):
        return "quote"
    return "text"


_KIND_CODES = {"text": 0.0, "heading": 1.0, "item": 2.0, "table": 3.0, "code": 4.0, "quote": 5.0}


def _tokens(text: str) -> Iterator[list[bytes]]:
    """Lower-case words of ``text`` with link targets and ASCII punctuation left out, in
    lists of a :func:`~spyglass.extract.words.pieces` each (a page-long line's words as one
    list would take tens of megabytes)."""
    if "](" in text:
        text = _TARGET.sub(r"\1\2", text)
    for piece in pieces(text):
        # Bytes: translate and split run in C, several times faster than a \w+ regex on str.
        yield piece.encode("utf-8", "replace").lower().translate(_PUNCTUATION).split()


def _word_count(text: str) -> int:
    """How many :func:`_tokens` ``text`` has."""
    return sum(len(found) for found in _tokens(text))


def block_key(text: str) -> bytes:
    """The words of ``text`` (:func:`_tokens`) as one key: the same block has the same key in
    every reading."""
    return b" ".join(b" ".join(found) for found in _tokens(text) if found)


def line_keys(
    readings: dict[str, str], known: dict[str, bytes] | None = None
) -> dict[str, set[bytes]]:
    """Each reading's lines as word keys, to ask whether another reading has a block;
    ``known`` keeps each line's key (:func:`block_key`) for the blocks' rows."""
    # The readings share most of their lines: each is read once.
    known = {} if known is None else known
    found: dict[str, set[bytes]] = {}
    for kind, text in readings.items():
        keys: set[bytes] = set()
        for line in text.split("\n"):
            if not line.strip():
                continue
            key = known.get(line)
            if key is None:
                key = known[line] = block_key(line)
            keys.add(key)
        found[kind] = keys
    return found


def block_rows(
    blocks: list[Block],
    reading: str,
    keys: dict[str, set[bytes]],
    context: Sequence[float] = (),
    places: Placer | None = None,
    known: dict[str, bytes] | None = None,
) -> list[list[float]]:
    """One feature row per non-empty block of the ``reading`` candidate (empty ones get
    ``[]``); ``keys`` are every reading's :func:`line_keys`, ``known`` the line keys that
    call kept. Each row continues with the block's place in the page (``places``; unknown
    without it) and ends with ``context`` (the reading's row of page and candidate features,
    :func:`spyglass.extract.features.rows`), so what a block is worth can depend on where it
    sits and on what kind of page."""
    return list(_block_rows(blocks, reading, keys, context, places, known))


def _block_rows(
    blocks: list[Block],
    reading: str,
    keys: dict[str, set[bytes]],
    context: Sequence[float],
    places: Placer | None,
    known: dict[str, bytes] | None,
) -> Iterator[list[float]]:
    """:func:`block_rows`, one row at a time."""
    unknown = [0.0] + [math.nan] * (len(PLACE_FEATURES) - 1)
    known = {} if known is None else known
    block_keys = [known.get(b.text) or block_key(b.text) for b in blocks]
    # Words are joined by single spaces and hold none.
    words = [key.count(b" ") + 1 if key else 0 for key in block_keys]
    filled = [i for i, b in enumerate(blocks) if b.text.strip()]
    total_words = sum(words) or 1
    long_lines = [i for i in filled if words[i] >= LONG_WORDS and blocks[i].kind == "text"]
    first_long = long_lines[0] if long_lines else -1
    last_long = long_lines[-1] if long_lines else -1
    densities = [link_density(b.text) for b in blocks]
    under_boilerplate = 0.0
    before = 0
    count = len(filled) or 1
    order = {index: rank for rank, index in enumerate(filled)}
    for index, block in enumerate(blocks):
        if block.kind == "heading":
            under_boilerplate = float(names_a_box(block.text))
        if index not in order:
            yield []
            continue
        rank = order[index]
        key = block_keys[index]
        text = block.text.rstrip()
        previous = filled[rank - 1] if rank > 0 else None
        following = filled[rank + 1] if rank + 1 < len(filled) else None
        # Boxes around an article are short; long paragraphs are not searched for names.
        named = words[index] <= SHORT_WORDS and names_a_box(text)
        row = [
            float(KINDS.index(reading)),
            _KIND_CODES[block.kind],
            rank / count,
            (count - rank) / count,
            float(count - rank),
            before / total_words,
            math.log1p(words[index]),
            math.log1p(len(text)),
            densities[index],
            densities[previous] if previous is not None else -1.0,
            densities[following] if following is not None else -1.0,
            float(text.endswith((".", "!", "?", '."', ".”", ":"))),
            _digits(text) / max(len(text), 1),
            float(named),
            under_boilerplate,
            float(last_long >= 0 and index > last_long),
            float(first_long >= 0 and index < first_long),
            float(index == last_long),
            float(len(long_lines)),
            *(float(key in keys[kind]) for kind in KINDS),
            float(text.lstrip().startswith("![")),
            math.log1p(total_words),
            *(places.row(text) if places is not None else unknown),
            *context,
        ]
        yield row
        before += words[index]


BLOCK_FEATURES = [
    "reading",
    "block_kind",
    "position",
    "from_end",
    "blocks_after",
    "words_before_share",
    "words",
    "chars",
    "link_density",
    "previous_link_density",
    "next_link_density",
    "sentence_end",
    "digit_share",
    "boilerplate_words",
    "boilerplate_heading",
    "after_last_long",
    "before_first_long",
    "is_last_long",
    "long_paragraphs",
    *(f"in_{kind}" for kind in KINDS),
    "image",
    "reading_words",
    *PLACE_FEATURES,
]


def _digits(text: str) -> int:
    """How many digits (``\\d``) ``text`` has."""
    if text.isascii():
        # What deleting them takes away, in C: no list of a long block's digits.
        ascii_text = text.encode("ascii")
        return len(ascii_text) - len(ascii_text.translate(None, _DIGIT_BYTES))
    return _DIGIT.subn("", text)[1]


def link_density(text: str) -> float:
    """The share of a block's shown characters (link targets left out) in link labels."""
    if "](" not in text:
        return 0.0
    visible = without_targets(text)
    if not visible.strip():
        return 0.0
    linked = link_label_chars(text)
    return min(1.0, linked / len(visible))


@dataclass(frozen=True)
class Scored:
    """A reading's blocks, each with its chance of being content (None for empty ones)."""

    markdown: str
    blocks: list[Block]
    chances: list[float | None]

    def kept(self, threshold: float) -> str:
        """The reading without the blocks whose chance is below ``threshold`` (the top
        heading always stays; a reading under :data:`KEEP_WHOLE_CHARS`, or one of which
        fewer than :data:`LEAST_WORDS` words would stay, stays whole); ``""`` when the
        reading itself has fewer than :data:`LEAST_WORDS` words."""
        whole = len(self.markdown) < KEEP_WHOLE_CHARS
        title = _title_block(self.blocks)
        kept = [
            block
            for index, (block, chance) in enumerate(zip(self.blocks, self.chances, strict=True))
            if whole or chance is None or chance >= threshold or index == title
        ]
        text = _joined(kept)
        if not too_little(text):
            return text
        # Leaving (almost) every block out would answer "nothing here" for a page that has
        # text: the model doubts this reading, so it stands whole.
        whole_text = _joined(self.blocks)
        return "" if too_little(whole_text) else whole_text

    def summary(self, threshold: float) -> list[float]:
        """The :data:`FILTER_FEATURES` of this reading: how much of it (log words, share of
        words, share of blocks) has at least ``threshold``, the word-weighted mean chance
        and the share of words the model is sure of."""
        return _summary(self.blocks, self.chances, threshold)


#: What the block model makes of a reading, for the chooser (:meth:`Scored.summary`).
FILTER_FEATURES = [
    "filter_kept_words",
    "filter_kept_share",
    "filter_kept_blocks_share",
    "filter_mean_chance",
    "filter_sure_share",
]


def _summary(
    blocks: Sequence[Block], chances: Sequence[float | None], threshold: float
) -> list[float]:
    words = [_word_count(b.text) + 1 for b, c in zip(blocks, chances, strict=True) if c is not None]
    scored = [c for c in chances if c is not None]
    if not scored:
        return [0.0, math.nan, math.nan, math.nan, math.nan]
    total = sum(words)
    kept = sum(w for w, c in zip(words, scored, strict=True) if c >= threshold)
    sure = sum(w for w, c in zip(words, scored, strict=True) if c >= 0.8)
    return [
        math.log1p(kept),
        kept / total,
        sum(c >= threshold for c in scored) / len(scored),
        sum(w * c for w, c in zip(words, scored, strict=True)) / total,
        sure / total,
    ]


def score_blocks(
    reading: str,
    readings: dict[str, str],
    chances: Callable[[list[list[float]]], list[float]],
    context: Sequence[float] = (),
    places: Placer | None = None,
) -> Scored:
    """The ``reading`` candidate's blocks with their chances as ``chances`` scores their
    rows (see :func:`block_rows` for ``context`` and ``places``)."""
    markdown = readings[reading]
    blocks = split_blocks(markdown)
    known: dict[str, bytes] = {}
    keys = line_keys(readings, known)
    found: list[float | None] = []
    # Scored a batch at a time: a row is a hundred numbers, and the rows of a page of a
    # hundred thousand blocks held at once would take hundreds of megabytes.
    batch: list[list[float]] = []
    slots: list[int] = []
    for row in _block_rows(blocks, reading, keys, context, places, known):
        if row:
            slots.append(len(found))
            batch.append(row)
        found.append(None)
        if len(batch) == _BATCH_ROWS:
            _score(batch, slots, found, chances)
    _score(batch, slots, found, chances)
    return Scored(markdown, blocks, found)


#: Block rows scored at once (each row's chance does not depend on the others').
_BATCH_ROWS = 2048


def _score(
    batch: list[list[float]],
    slots: list[int],
    found: list[float | None],
    chances: Callable[[list[list[float]]], list[float]],
) -> None:
    """Put the chances of the rows in ``batch`` at their ``slots`` of ``found``; empty both."""
    if batch:
        for slot, chance in zip(slots, chances(batch), strict=True):
            found[slot] = chance
    batch.clear()
    slots.clear()


def keep_content(
    reading: str,
    readings: dict[str, str],
    chances: Callable[[list[list[float]]], list[float]],
    threshold: float,
    context: Sequence[float] = (),
    places: Placer | None = None,
) -> str:
    """The ``reading`` candidate without the blocks whose chance of being content, as
    ``chances`` scores their rows (see :func:`block_rows` for ``context``), is below
    ``threshold``."""
    return score_blocks(reading, readings, chances, context, places).kept(threshold)


def too_little(text: str) -> bool:
    """Whether ``text`` has fewer than :data:`LEAST_WORDS` words (link targets not counted;
    each Chinese or Japanese character counts as one)."""
    # Counted until there are enough: a long reading is answered from its first piece.
    found = 0
    for tokens in _tokens(text):
        found += len(tokens)
        if found >= LEAST_WORDS:
            return False
    unspaced = _UNSPACED.finditer(text)
    return next(islice(unspaced, LEAST_WORDS - found - 1, None), None) is None


def _joined(blocks: Sequence[Block]) -> str:
    """``blocks`` as the model reads them: lines of only spaces and tabs blank, one blank
    line in a row, one marker to a heading; code stays as the page wrote it."""
    texts = (b.text if b.kind == "code" else _tidy(b.text) for b in blocks)
    return collapse_blank_runs("\n".join(texts)).strip()


def _tidy(text: str) -> str:
    """``text`` with its lines of only spaces and tabs blank and one marker to a heading."""
    if "\n" in text:
        return _MARKERS.sub(r"\1", _SPACES_ONLY.sub("", text))
    # Most blocks are one line that is neither: no pattern need read it.
    if not text.strip(" \t"):
        return ""
    return _MARKERS.sub(r"\1", text) if text.startswith("#") else text


def _title_block(blocks: list[Block]) -> int:
    """Index of the page's top heading (the first level-one heading), -1 when none: it
    names what the content is, so it is kept whatever its chance."""
    for index, block in enumerate(blocks):
        if block.kind == "heading" and block.text.startswith("# "):
            return index
    return -1
