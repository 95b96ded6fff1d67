"""The block model's training: every reading's blocks labelled by the references, the
model fitted on them, and what it keeps of a reading held out (bench/TRAINING.md). A WCXB
block is content when at least half of its word trigrams are in the page's reference (under
three words: its words as a phrase); a trafilatura-eval block is boilerplate when it holds a
``without`` snippet, content when it holds a ``with`` one, and unlabelled otherwise.
"""

from __future__ import annotations

import hashlib
import math
import pickle
import re
import sys
import time
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.extraction_data import FOLDS, SEED, Page, plain  # noqa: E402

BLOCK_CACHE = ROOT / "bench" / "results" / "extraction-blocks-v2.pkl"
_WORDS = re.compile(r"\w+")
#: What every extraction model is trained with: fixed seeds, one thread, deterministic
#: LightGBM, so the same data give the same model files.
COMMON_PARAMS: dict[str, Any] = {
    "learning_rate": 0.05,
    "feature_fraction": 0.8,
    "bagging_fraction": 0.8,
    "bagging_freq": 1,
    "lambda_l2": 1.0,
    "seed": SEED,
    "deterministic": True,
    "force_col_wise": True,
    "num_threads": 1,
    "verbose": -1,
}
BLOCK_PARAMS: dict[str, Any] = {
    **COMMON_PARAMS,
    "objective": "binary",
    # Held out, 63 leaves of 25 blocks scored higher than 31 of 50 on every chooser seed,
    # 127 leaves lower (docs/decisions.md).
    "num_leaves": 63,
    "min_data_in_leaf": 25,
    # No bagging: LightGBM draws each row's place in a bag by its position, so one page
    # read differently would shift every later row's draws; the sample fit_blocks takes
    # (:func:`sampled`) is the model's only sampling, and it is drawn by what each row is.
    # (Being under LightGBM's 200,000 rows, the sample is also binned whole.)
    "bagging_fraction": 1.0,
    "bagging_freq": 0,
}
BLOCK_ROUNDS = 150
#: About this many labelled blocks are used for training (keeps training quick).
BLOCK_SAMPLE = 150_000


def _token_list(text: str) -> list[str]:
    return _WORDS.findall(plain(text).lower().replace("_", " "))


class Truth:
    """A page's references, prepared for labelling blocks."""

    def __init__(self, page: Page) -> None:
        self.page = page
        tokens = _token_list(page.reference)
        self.joined = " " + " ".join(tokens) + " "
        self.shingles = {tuple(tokens[i : i + 3]) for i in range(len(tokens) - 2)}
        self.with_ = [" ".join(_token_list(s)) for s in page.with_]
        self.without = [" ".join(_token_list(s)) for s in page.without]

    def label(self, text: str) -> float | None:
        """1 for content, 0 for boilerplate, None when the references do not say."""
        tokens = _token_list(text)
        if not tokens:
            return None
        joined = " ".join(tokens)
        if self.page.corpus != "wcxb":
            if any(s and s in joined for s in self.without):
                return 0.0
            if any(s and s in joined for s in self.with_):
                return 1.0
            return None
        if len(tokens) < 3:
            return float(f" {joined} " in self.joined)
        shingles = [tuple(tokens[i : i + 3]) for i in range(len(tokens) - 2)]
        share = sum(s in self.shingles for s in shingles) / len(shingles)
        return float(share >= 0.5)


class Replay:
    """The place rows read with the page's tree, handed back in order (the cache has no
    tree): :func:`~spyglass.extract.blocks.block_rows` asks once per non-empty block."""

    def __init__(self, rows: Any) -> None:
        self._rows = iter(rows)

    def row(self, markdown: str) -> list[float]:
        return [float(v) for v in next(self._rows)]


def context_of(page: dict[str, Any], kind: str) -> list[float]:
    """The chooser's row of the ``kind`` reading, which ends every block row."""
    from spyglass.extract.readings import KINDS

    return list(page["rows"][KINDS.index(kind)]) if page["rows"] is not None else []


#: One reading's blocks: (features of every non-empty block in document order, labels with
#: NaN for blocks the references do not judge, weights).
Examples = tuple[Any, Any, Any]
#: Every reading's blocks of one page, by kind (None when the page has no tree).
PageBlocks = dict[str, Examples] | None


def block_examples(page: dict[str, Any], truth: Truth) -> PageBlocks:
    """The blocks of every candidate reading of ``page`` as :data:`Examples`."""
    import numpy

    from spyglass.extract.blocks import block_rows, line_keys, split_blocks
    from spyglass.extract.readings import KINDS

    if page["rows"] is None:
        return None
    keys = line_keys(page["texts"])
    found: dict[str, Examples] = {}
    for kind in KINDS:
        rows, labels, weights = [], [], []
        blocks = split_blocks(page["texts"][kind])
        replay = Replay(page["places"][kind])
        described = block_rows(blocks, kind, keys, context_of(page, kind), replay)
        for block, row in zip(blocks, described, strict=True):
            if not row:
                continue
            label = truth.label(block.text)
            rows.append(row)
            labels.append(math.nan if label is None else label)
            # Dropping a long paragraph by mistake costs more than keeping a short link.
            weights.append(math.sqrt(1 + len(block.text.split())))
        found[kind] = (
            numpy.asarray(rows, dtype=numpy.float32),
            numpy.asarray(labels, dtype=numpy.float64),
            numpy.asarray(weights, dtype=numpy.float64),
        )
    return found


def block_names(pages: list[dict[str, Any]]) -> list[str]:
    from spyglass.extract.blocks import BLOCK_FEATURES

    names = next(p["names"] for p in pages if p["rows"] is not None)
    return [*BLOCK_FEATURES, *(f"reading_{name}" for name in names)]


def sampled(x: Any, size: int, salt: bytes = b"") -> Any:
    """A mask keeping about ``size`` of the rows of ``x``, each kept or not by a hash of its
    own values (after ``salt``, which draws another sample of the same size): a block is in
    the sample whatever the other pages read (every k-th row would move every later row in
    or out when a few pages read differently, and the retrained model with them)."""
    import numpy

    if len(x) <= size:
        return numpy.ones(len(x), dtype=bool)
    rows = numpy.ascontiguousarray(x, dtype=numpy.float32)
    # CRC-32 is affine: a salt before the row only XORs every key with one constant (one
    # such draw shared no row with the plain sample), so a salted draw uses a keyed hash.
    keys = numpy.fromiter(
        (
            int.from_bytes(hashlib.blake2b(row.tobytes(), digest_size=4, key=salt).digest())
            if salt
            else zlib.crc32(row.tobytes())
            for row in rows
        ),
        dtype=numpy.uint64,
        count=len(rows),
    )
    # A share, not every k-th hash: a few rows more or less move only the rows whose hash
    # sits at the edge of the share.
    return keys < int(size / len(x) * 2**32)


def fit_blocks(examples: list[tuple[Any, Any, Any]], names: list[str], salt: bytes = b"") -> Any:
    """A block model on the labelled rows of ``examples`` (features, labels, weights), trained
    on the sample ``salt`` draws (:func:`sampled`)."""
    import lightgbm
    import numpy

    present = [e for e in examples if len(e[1])]
    x = numpy.vstack([e[0] for e in present])
    y = numpy.concatenate([e[1] for e in present])
    w = numpy.concatenate([e[2] for e in present])
    labelled = ~numpy.isnan(y)
    x, y, w = x[labelled], y[labelled], w[labelled]
    chosen = sampled(x, BLOCK_SAMPLE, salt)
    data = lightgbm.Dataset(
        x[chosen].astype(numpy.float64),
        y[chosen],
        weight=w[chosen],
        feature_name=names,
        categorical_feature=["reading", "block_kind"],
    )
    return lightgbm.train(BLOCK_PARAMS, data, num_boost_round=BLOCK_ROUNDS)


def balanced(examples: list[Examples], corpora: list[str]) -> list[Examples]:
    """``examples`` (``corpora[i]`` the corpus of ``examples[i]``) with the weights of each
    corpus scaled so that its labelled rows weigh as much in total as the heaviest
    corpus's; the heaviest keeps its weights, a corpus with no labelled rows too.

    The two corpora count equally in what extraction is judged by (the mean of WCXB word
    F1 and trafilatura-eval snippet F1), but not in the blocks: WCXB's references label
    every block of a page, trafilatura-eval's snippets only the few blocks holding one,
    and those few are the only examples of what that corpus calls boilerplate."""
    import numpy

    totals: dict[str, float] = {}
    for (_, labels, weights), corpus in zip(examples, corpora, strict=True):
        labelled = ~numpy.isnan(labels)
        totals[corpus] = totals.get(corpus, 0.0) + float(numpy.asarray(weights)[labelled].sum())
    heaviest = max(totals.values(), default=0.0)
    scale = {c: heaviest / t if t > 0 else 1.0 for c, t in totals.items()}
    return [
        (rows, labels, numpy.asarray(weights) * scale[corpus])
        for (rows, labels, weights), corpus in zip(examples, corpora, strict=True)
    ]


def readings_of(
    per_page: list[PageBlocks], indices: list[int], pages: list[dict[str, Any]]
) -> list[Examples]:
    """The blocks of every reading of the ``indices`` pages, each corpus's labelled blocks
    weighing the same in total (:func:`balanced`)."""
    present = [i for i in indices if per_page[i] is not None]
    examples = [e for i in present for e in per_page[i].values()]  # type: ignore[union-attr]
    corpora = [pages[i]["corpus"] for i in present for _ in per_page[i]]  # type: ignore[union-attr]
    return balanced(examples, corpora)


def fold_models(
    per_page: list[PageBlocks], fold_of: list[int], names: list[str], pages: list[dict[str, Any]]
) -> list[Any]:
    """The block model of each fold, trained on the blocks of the other folds' pages."""
    models = []
    for fold in range(FOLDS):
        started = time.perf_counter()
        training = readings_of(per_page, [i for i, f in enumerate(fold_of) if f != fold], pages)
        models.append(fit_blocks(training, names))
        print(f"  block model, fold {fold + 1}: {time.perf_counter() - started:.0f} s", flush=True)
    return models


Chances = Callable[[list[list[float]]], list[float]]


def chances_of(model: Any) -> Chances:
    """Each block row's chance of being content, as ``model`` gives it."""
    import numpy

    def chances(rows: list[list[float]]) -> list[float]:
        if not rows:
            return []
        matrix = numpy.asarray(rows, dtype=numpy.float32).astype(numpy.float64)
        return [float(v) for v in model.predict(matrix, num_threads=1)]

    return chances


def filtered(
    chances: Chances, page: dict[str, Any], kind: str, thresholds: list[float]
) -> list[str]:
    """The ``kind`` candidate without the blocks ``chances`` finds unlikely to be content,
    for each threshold (the blocks are described and scored once)."""
    from spyglass.extract.blocks import score_blocks

    if page["rows"] is None:
        return [page["texts"][kind]] * len(thresholds)
    replay = Replay(page["places"][kind])
    scored = score_blocks(kind, page["texts"], chances, context_of(page, kind), replay)
    return [scored.kept(t) for t in thresholds]


def block_data(pages: list[dict[str, Any]], truths: list[Truth], rebuild: bool) -> list[PageBlocks]:
    """Every page's blocks with their labels, cached beside the readings."""
    import numpy

    if BLOCK_CACHE.exists() and not rebuild:
        with BLOCK_CACHE.open("rb") as handle:
            cached: list[PageBlocks] = pickle.load(handle)
            return cached
    started = time.perf_counter()
    per_page = [block_examples(p, t) for p, t in zip(pages, truths, strict=True)]
    examples = [e for blocks in per_page if blocks is not None for e in blocks.values()]
    count = sum(int((~numpy.isnan(e[1])).sum()) for e in examples)
    total = sum(len(e[1]) for e in examples)
    print(
        f"  blocks: {total:,}, labelled {count:,} ({time.perf_counter() - started:.0f} s)",
        flush=True,
    )
    with BLOCK_CACHE.open("wb") as handle:
        pickle.dump(per_page, handle)
    return per_page
