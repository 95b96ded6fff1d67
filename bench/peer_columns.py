"""Another extractor's decision as block columns, measured held out (issue #12, round
thirty-one).

    .venv/bin/pip install resiliparse                 # not in any extra: a measurement only
    .venv/bin/python bench/peer_columns.py --seeds 20261130,7     # ~4 min a seed

The block filter already sees trafilatura's decision (``in_article``: the block is in the
article reading). This gives it a second, independent one: Resiliparse's main-content text
(its own rules over its own parser) read from the same HTML, and for every block the share
of its word triples found there, whether it is one of that text's lines, and how long that
text is against the reading. Each seed gets a row for the shipped block model and one for
the model trained with these columns (:func:`bench.block_headroom.compare`); first, the peer
alone, scored as the other systems are.

Reads the caches ``bench/train_extraction.py --rebuild`` writes.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import block_headroom, block_training, extraction_data  # noqa: E402
from bench import train_extraction as training  # noqa: E402
from spyglass.extract.blocks import block_key, split_blocks  # noqa: E402

COLUMNS = ["peer_triples", "peer_line", "peer_length"]


def triples(key: bytes) -> set[bytes]:
    """A block key's runs of three words (the whole key when shorter)."""
    words = key.split()
    if len(words) < 3:
        return {key} if key else set()
    return {b" ".join(words[i : i + 3]) for i in range(len(words) - 2)}


def columns(markdown: str, peer: str) -> list[list[float]]:
    """For every non-empty block of ``markdown``: the share of its word triples in ``peer``'s
    text, whether it is one of ``peer``'s lines, and the log of ``peer``'s words over the
    reading's (the same on every block)."""
    blocks = [block_key(b.text) for b in split_blocks(markdown) if b.text.strip()]
    peer_key = block_key(peer)
    found = triples(peer_key)
    lines = {block_key(line) for line in peer.splitlines() if line.strip()}
    words = sum(len(key.split()) for key in blocks)
    length = math.log((len(peer_key.split()) + 1) / (words + 1))
    rows = []
    for key in blocks:
        own = triples(key)
        share = len(own & found) / len(own) if own else 0.0
        rows.append([share, float(key in lines), length])
    return rows


def resiliparse_text(html: str) -> str:
    """Resiliparse's main-content text of ``html``, one block a line."""
    try:
        from resiliparse.extract.html2text import extract_plain_text
        from resiliparse.parse.html import HTMLTree
    except ImportError as error:
        raise SystemExit("this needs Resiliparse: .venv/bin/pip install resiliparse") from error
    return str(
        extract_plain_text(
            HTMLTree.parse(html), main_content=True, preserve_formatting=True, links=False
        )
    )


def peer_texts(pages: list[dict[str, Any]]) -> dict[str, str]:
    """The peer's text of every page, by the page's corpus and id."""
    return {
        f"{p['corpus']}/{p['id']}": resiliparse_text(
            extraction_data.load(p["corpus"], p["id"]).html
        )
        for p in pages
    }


def alone(
    pages: list[dict[str, Any]], truths: list[block_training.Truth], texts: dict[str, str]
) -> None:
    """Print the peer's own figures, as ``bench/train_extraction.py`` counts them."""
    result = training.figures(
        (page, truth.page.score(texts[f"{page['corpus']}/{page['id']}"]))
        for page, truth in zip(pages, truths, strict=True)
    )
    traf = result["trafilatura_eval"]
    print(
        f"Resiliparse alone: WCXB word F1 {result['wcxb']['overall']:.3f}; trafilatura-eval "
        f"P {traf['precision']:.3f} R {traf['recall']:.3f} F1 {traf['f1']:.3f}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", default="20261130", help="the block model's seeds")
    options = parser.parse_args()
    started = time.perf_counter()
    pages = training.collect(1, False)
    truths = block_training.truths(pages)
    texts = peer_texts(pages)
    alone(pages, truths, texts)

    def read(page: dict[str, Any], markdown: str) -> list[list[float]]:
        return columns(markdown, texts[f"{page['corpus']}/{page['id']}"])

    other = block_headroom.grown_by(read, COLUMNS, "Resiliparse's decision")
    block_headroom.compare(pages, truths, [int(s) for s in options.seeds.split(",")], other)
    print(f"({time.perf_counter() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
