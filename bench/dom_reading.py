"""Measure a fourth candidate reading, assembled from blocks segmented from the DOM, held
out on WCXB dev and trafilatura-eval (issue #12; not shipped, see docs/benchmarks.md).

    .venv/bin/python bench/dom_reading.py [--jobs 2] [--rebuild] [--rules 0.5,0.6/0.4/0.4]
        [--summary] [--skip-chrome] [--boost F] [--without F1,F2] [--time N]
        [--no-trafilatura article,shares,free]

Needs the readings and block caches of ``bench/train_extraction.py`` (run it first, with
``--rebuild`` on a fresh checkout). Steps:

1. Segments every page's body (:func:`bench.segments.segments`) and describes each
   block (:func:`~bench.segments.segment_rows`, ending with the chooser's context
   row of the page); labels as the block filter's (a WCXB block is content when half of its
   word trigrams, or its phrase when short, are in the reference; on trafilatura-eval a
   block holding a ``without`` snippet is boilerplate, one holding a ``with`` snippet
   content). Cached in ``bench/results/extraction-segments-chrome.pkl`` (``-skip`` with
   ``--skip-chrome``, which leaves out what the region reader leaves out).
2. Five folds grouped by site (those of ``train_extraction.py``): each page's blocks are
   scored by a DOM-block model (LightGBM, binary) trained on the other folds (cached); the
   kept blocks, assembled, are the page's ``dom`` reading.
3. For each rule of ``--rules`` (one threshold, or ``article/other/none`` thresholds by the
   page's declared type, :func:`spyglass.extract.thresholds.declared_type`): the dom reading alone,
   the ceiling of choosing among four readings, and the chooser retrained over four
   readings (the dom reading's row like the others'; ``--summary`` adds what the DOM-block
   model made of the page), the chosen reading filtered as shipped unless it is ``dom``;
   beside the shipped path (three readings, block filter at the shipped keep thresholds),
   every decision held out. The shipped path's filtered scores are cached too.

``--without in_region`` measures the DOM-block model without those features (their columns
left missing in training and prediction; held-out chances cached apart), to find the ones
that can be left uncomputed.

``--no-trafilatura`` then measures, at the same rules, choosers without trafilatura's
reading: ``article`` (over the region, block and dom readings, the DOM-block model without
the features that read the article reading), ``shares`` (the same, every containment
feature left out too) and ``free`` (over the region and dom readings, the DOM-block model
without the article's or the block reading's features: the block reading is read from the
element enclosing the article's paragraphs, so only this one never calls trafilatura). A
chosen region or block reading is filtered as shipped. With ``free``, ``--time N`` times
that path instead of the four-way one.

``--time N`` first measures the CPU time of the dom reading's parts (segmenting, describing,
the model, with a DOM-block model trained on every page) and of extraction with the dom
reading as a fourth candidate (the chooser over four readings, the block filter where the
chosen reading is not the dom reading; the first threshold of ``--rules``), beside
``extract_html`` and trafilatura's default extraction on N evenly spread WCXB pages.
"""

from __future__ import annotations

import argparse
import hashlib
import math
import pickle
import statistics
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.block_training import (  # noqa: E402
    BLOCK_PARAMS,
    Truth,
    block_data,
    block_names,
    filtered,
    one_pass,
    out_of_fold,
)
from bench.extraction_data import FOLDS, folds, load, load_truth  # noqa: E402
from bench.train_extraction import collect, fit, pick, report  # noqa: E402
from spyglass.extract.features import CONTEXT_START  # noqa: E402

CACHE = ROOT / "bench" / "results" / "extraction-segments.pkl"
#: Every page's held-out filtered scores of the shipped path, by (page, reading).
FILTERED = ROOT / "bench" / "results" / "extraction-segments-filtered.pkl"
#: Every page's held-out block chances.
HELD_OUT = ROOT / "bench" / "results" / "extraction-segments-heldout.pkl"
READINGS = ("article", "region", "block", "dom")
#: The readings of a path that never calls trafilatura (``--no-trafilatura``).
WITHOUT_ARTICLE = ("region", "block", "dom")
#: What a reading's row says of it (:func:`spyglass.extract.features.candidate_features`).
CANDIDATE_NUMBERS = (
    "chars",
    "lines",
    "link_density",
    "list_share",
    "heading_share",
    "table_share",
    "short_share",
    "long_share",
    "sentence_share",
    "mean_words",
)
#: The DOM-block features that read trafilatura's reading: its trigram share, the content
#: block found from its paragraphs, and the page context's numbers of it and shares with it.
ARTICLE_FEATURES = [
    "in_article",
    "in_content_block",
    *(f"page_article_{n}" for n in CANDIDATE_NUMBERS),
    "page_article_in_region",
    "page_article_in_block",
    "page_region_in_article",
    "page_block_in_article",
]
#: The containment features left once trafilatura's are gone (``--no-trafilatura shares``).
SHARE_FEATURES = ["in_region", "in_block", "page_region_in_block", "page_block_in_region"]
#: The DOM-block features that read the block reading, itself read from the element
#: enclosing trafilatura's paragraphs (``--no-trafilatura free``).
BLOCK_FEATURES = [
    "in_block",
    *(f"page_block_{n}" for n in CANDIDATE_NUMBERS),
    "page_region_in_block",
    "page_block_in_region",
]
#: What each ``--no-trafilatura`` variant leaves out of the DOM-block model, and the
#: readings its chooser chooses among.
NO_TRAFILATURA: dict[str, tuple[list[str], tuple[str, ...]]] = {
    "article": (ARTICLE_FEATURES, WITHOUT_ARTICLE),
    "shares": ([*ARTICLE_FEATURES, *SHARE_FEATURES], WITHOUT_ARTICLE),
    "free": ([*ARTICLE_FEATURES, *BLOCK_FEATURES], ("region", "dom")),
}
#: Page types whose blocks ``--boost`` weighs more: the content the dom reading cuts most.
BOOSTED = frozenset(["product", "collection", "listing", "service"])
ROUNDS = 200
SAMPLE = 200_000
#: What the DOM-block model made of a page, for the chooser (``--summary``).
SUMMARY_FEATURES = ["dom_mean_chance", "dom_kept_share", "dom_kept_words"]
DOM_PARAMS: dict[str, Any] = {**BLOCK_PARAMS, "num_leaves": 31, "min_data_in_leaf": 40}


def best_of(kinds: Sequence[str], page: dict[str, Any]) -> str:
    """The reading among ``kinds`` that scores best on ``page``."""
    return str(max(kinds, key=lambda kind: float(page["scores"][kind]["f1"])))


def segment_page(
    item: tuple[str, str, dict[str, str], list[float] | None, bool],
) -> dict[str, Any]:
    """One page's blocks: feature rows, labels, weights, and what assembling needs."""
    import numpy

    from bench.segments import SEGMENT_FEATURES, segment_rows, segments
    from spyglass.extract.article_container import content_container
    from spyglass.extract.block_markup import Places, text_index
    from spyglass.extract.html import _base_url
    from spyglass.extract.tree import parse

    corpus, page_id, texts, context, chrome = item
    page = load(corpus, page_id)
    tree = parse(page.html)
    if tree is None or context is None:
        return {"rows": None}
    index = text_index(tree)
    container = content_container(tree, texts["article"], index)
    body = tree.find(".//body")
    found = segments(body if body is not None else tree, _base_url(tree, page.url), chrome)
    rows = segment_rows(found, texts, Places(index, container), context)
    truth = Truth(load_truth(corpus, page_id))
    labels = [truth.label(s.markdown) for s in found]
    return {
        "rows": numpy.asarray(rows, dtype=numpy.float32).reshape(
            len(found), len(SEGMENT_FEATURES) + len(context)
        ),
        "labels": numpy.asarray(
            [math.nan if label is None else label for label in labels], dtype=numpy.float64
        ),
        "weights": numpy.asarray(
            [math.sqrt(1 + len(s.text.split())) for s in found], dtype=numpy.float64
        ),
        "segments": [(s.kind, s.markdown, s.cells, s.table) for s in found],
    }


def variant(path: Path, chrome: bool) -> Path:
    """The cache file of the chrome or skip-chrome segmentation."""
    return path.with_name(f"{path.stem}-{'chrome' if chrome else 'skip'}.pkl")


def segment_all(
    pages: list[dict[str, Any]], jobs: int, rebuild: bool, chrome: bool
) -> list[dict[str, Any]]:
    cache = variant(CACHE, chrome)
    if cache.exists() and not rebuild:
        with cache.open("rb") as handle:
            cached: list[dict[str, Any]] = pickle.load(handle)
            return cached
    started = time.perf_counter()
    work = [
        (
            p["corpus"],
            p["id"],
            p["texts"],
            p["rows"][0][CONTEXT_START:] if p["rows"] is not None else None,
            chrome,
        )
        for p in pages
    ]
    if jobs > 1:
        with ProcessPoolExecutor(jobs) as pool:
            found = list(pool.map(segment_page, work, chunksize=8))
    else:
        found = [segment_page(item) for item in work]
    with cache.open("wb") as handle:
        pickle.dump(found, handle)
    total = sum(len(f["labels"]) for f in found if f["rows"] is not None)
    print(f"  segments: {total:,} ({time.perf_counter() - started:.0f} s)", flush=True)
    return found


def segment_names(pages: list[dict[str, Any]]) -> list[str]:
    from bench.segments import SEGMENT_FEATURES

    names = next(p["names"] for p in pages if p["rows"] is not None)
    return [*SEGMENT_FEATURES, *(f"page_{n}" for n in names[CONTEXT_START:])]


def fit_segments(data: list[dict[str, Any]], names: list[str]) -> Any:
    import lightgbm
    import numpy

    present = [d for d in data if d["rows"] is not None and len(d["labels"])]
    x = numpy.vstack([d["rows"] for d in present])
    y = numpy.concatenate([d["labels"] for d in present])
    w = numpy.concatenate([d["weights"] * d.get("boost", 1.0) for d in present])
    labelled = ~numpy.isnan(y)
    x, y, w = x[labelled], y[labelled], w[labelled]
    step = max(1, math.ceil(len(y) / SAMPLE))
    dataset = lightgbm.Dataset(
        x[::step].astype(numpy.float64),
        y[::step],
        weight=w[::step],
        feature_name=names,
        categorical_feature=["segment_kind", "owner_tag"],
    )
    return lightgbm.train(DOM_PARAMS, dataset, num_boost_round=ROUNDS)


def assembled(data: dict[str, Any], chances: Any, threshold: float) -> str:
    from bench.segments import Segment, assemble, kept
    from spyglass.extract.readings import finish

    found = [
        Segment(None, kind, markdown, tuple(cells), table=table)
        for kind, markdown, cells, table in data["segments"]
    ]
    # Links are absolute already (the segments are read as the region reader reads).
    return finish(assemble(found, kept(chances, threshold)), "https://example.com/")


def page_dict(page: dict[str, Any]) -> dict[str, float]:
    names = page["names"]
    # After the kind, its own numbers, every reading's ten and the six shares.
    first = CONTEXT_START + 3 * 10 + 6
    return dict(zip(names[first:], page["rows"][0][first:], strict=True))


def four_way(
    page: dict[str, Any],
    dom_text: str,
    dom_score: dict[str, float],
    kinds: tuple[str, ...] = READINGS,
) -> dict[str, Any]:
    """The page as the chooser sees it with the ``dom`` reading as a fourth candidate (or,
    with ``kinds``, among those readings only: their rows say nothing of the others)."""
    from spyglass.extract.features import feature_names, reading_rows

    if page["rows"] is None:
        return {**page, "kinds": kinds}
    texts = {kind: dom_text if kind == "dom" else page["texts"][kind] for kind in kinds}
    features = page_dict(page)
    return {
        **page,
        "rows": reading_rows(features, texts),
        "texts": texts,
        "scores": {**page["scores"], "dom": dom_score},
        "names": feature_names(features, list(texts)),
    }


def pick_kind(booster: Any, page: dict[str, Any], kinds: tuple[str, ...]) -> str:
    import numpy

    if page["rows"] is None:
        return kinds[0]
    predicted = booster.predict(numpy.asarray(page["rows"], dtype=numpy.float64), num_threads=1)
    order = sorted(range(len(kinds)), key=lambda i: (-predicted[i], i))
    for index in order:
        if page["texts"][kinds[index]]:
            return kinds[index]
    return kinds[order[0]]


def fit_kinds(pages: list[dict[str, Any]], kinds: tuple[str, ...]) -> Any:
    import lightgbm
    import numpy

    from bench.train_extraction import PARAMS
    from bench.train_extraction import ROUNDS as CHOOSER_ROUNDS

    pages = [p for p in pages if p["rows"] is not None]
    x = numpy.asarray([row for p in pages for row in p["rows"]], dtype=numpy.float64)
    y = []
    for p in pages:
        values = [p["scores"][k]["f1"] for k in kinds]
        centre = sum(values) / len(values)
        y += [v - centre for v in values]
    data = lightgbm.Dataset(
        x, numpy.asarray(y), feature_name=pages[0]["names"], categorical_feature=["kind"]
    )
    return lightgbm.train(PARAMS, data, num_boost_round=CHOOSER_ROUNDS)


def heldout_chances(
    data: list[dict[str, Any]], names: list[str], fold_of: list[int], rebuild: bool, chrome: bool
) -> list[Any]:
    """Every page's block chances from a DOM-block model that never saw its site (cached)."""
    boosted = {d.get("boost", 1.0) for d in data} - {1.0}
    held_out = variant(HELD_OUT, chrome)
    if boosted:
        held_out = held_out.with_name(f"{held_out.stem}-boost{max(boosted)}.pkl")
    without = sorted({name for d in data for name in d.get("without", ())})
    if without:
        named = "-".join(without)
        if len(named) > 60:
            # Long lists would overflow a file name: their digest names them.
            named = hashlib.sha256(named.encode()).hexdigest()[:16]
        held_out = held_out.with_name(f"{held_out.stem}-without-{named}.pkl")
    if held_out.exists() and not rebuild:
        with held_out.open("rb") as handle:
            cached: list[Any] = pickle.load(handle)
            return cached
    chances: list[Any] = [None] * len(data)
    importance: dict[str, float] = defaultdict(float)
    for fold in range(FOLDS):
        started = time.perf_counter()
        model = fit_segments([d for d, f in zip(data, fold_of, strict=True) if f != fold], names)
        for name, gain in zip(names, model.feature_importance(importance_type="gain"), strict=True):
            importance[name] += float(gain)
        for index, d in enumerate(data):
            if fold_of[index] == fold and d["rows"] is not None and len(d["labels"]):
                chances[index] = model.predict(d["rows"].astype("float64"), num_threads=1)
        print(f"  dom model, fold {fold + 1}: {time.perf_counter() - started:.0f} s", flush=True)
    strongest = sorted(importance, key=lambda name: -importance[name])[:25]
    print("  top features:", ", ".join(strongest))
    with held_out.open("wb") as handle:
        pickle.dump(chances, handle)
    return chances


def shipped_scores(
    pages: list[dict[str, Any]], truths: list[Truth], fold_of: list[int], rebuild: bool
) -> Callable[[int, str], dict[str, float]]:
    """The score of a page's reading filtered as shipped (block model of the other folds,
    the page's keep threshold), computed when first asked and cached on disk."""
    from spyglass.extract.thresholds import keep_threshold

    cache: dict[tuple[int, str], dict[str, float]] = {}
    if FILTERED.exists() and not rebuild:
        with FILTERED.open("rb") as handle:
            cache.update(pickle.load(handle))
    filters: list[Any] = []

    def score(index: int, kind: str) -> dict[str, float]:
        key = (index, kind)
        if key not in cache:
            page = pages[index]
            if page["rows"] is None:
                cache[key] = page["scores"][kind]
            else:
                if not filters:
                    per_page = block_data(pages, truths, False)
                    filters.extend(out_of_fold(per_page, fold_of, block_names(pages), pages)[1])
                threshold = keep_threshold(page_dict(page), kind)
                text = filtered(one_pass(filters[fold_of[index]]), page, kind, [threshold])[0]
                cache[key] = truths[index].page.score(text)
        return cache[key]

    def save() -> None:
        with FILTERED.open("wb") as handle:
            pickle.dump(cache, handle)

    score.save = save  # type: ignore[attr-defined]
    return score


def summary(chances: Any, data: dict[str, Any], threshold: float) -> list[float]:
    """What the DOM-block model made of the page (:data:`SUMMARY_FEATURES`)."""
    import numpy

    if chances is None or not len(chances):
        return [0.0, 0.0, 0.0]
    from bench.segments import SEGMENT_FEATURES

    column = SEGMENT_FEATURES.index("words")
    words = numpy.expm1(data["rows"][:, column].astype("float64")) + 1.0
    total = float(words.sum())
    kept = float(words[chances >= threshold].sum())
    return [float((words * chances).sum() / total), kept / total, math.log1p(kept)]


def threshold_of(page: dict[str, Any], rule: dict[str, float]) -> float:
    from spyglass.extract.thresholds import declared_type

    if page["rows"] is None:
        return rule["none"]
    return rule[declared_type(page_dict(page))]


def evaluate(
    title: str,
    pages: list[dict[str, Any]],
    truths: list[Truth],
    data: list[dict[str, Any]],
    chances: list[Any],
    fold_of: list[int],
    rule: dict[str, float],
    shipped: Callable[[int, str], dict[str, float]],
    with_summary: bool,
    kinds: tuple[str, ...] = READINGS,
    label: str = "4-way",
) -> tuple[dict[str, Any], list[str]]:
    """Held-out figures of the dom reading alone and of the chooser among ``kinds`` (the
    four readings unless told) under ``rule`` (the dom reading's threshold by declared
    type)."""
    thresholds = [threshold_of(p, rule) for p in pages]
    texts = [
        assembled(d, c, t) if c is not None else ""
        for d, c, t in zip(data, chances, thresholds, strict=True)
    ]
    scores = [t.page.score(text) for t, text in zip(truths, texts, strict=True)]
    report(f"dom alone {label} {title}", _as(pages, scores), ["x"] * len(pages))
    seen = [four_way(p, texts[i], scores[i], kinds) for i, p in enumerate(pages)]
    if with_summary:
        for index, page in enumerate(seen):
            if page["rows"] is not None:
                extra = summary(chances[index], data[index], thresholds[index])
                page["rows"] = [[*row, *extra] for row in page["rows"]]
                page["names"] = [*page["names"], *SUMMARY_FEATURES]
    best = [best_of(kinds, p) for p in seen]
    report(
        f"ceiling {label} {title}",
        _as(pages, [p["scores"][k] for p, k in zip(seen, best, strict=True)]),
        ["x"] * len(pages),
    )
    chosen = [""] * len(pages)
    for fold in range(FOLDS):
        chooser = fit_kinds([p for p, f in zip(seen, fold_of, strict=True) if f != fold], kinds)
        for index, page in enumerate(seen):
            if fold_of[index] == fold:
                chosen[index] = pick_kind(chooser, page, kinds)
    outcome = [scores[i] if k == "dom" else shipped(i, k) for i, k in enumerate(chosen)]
    result = report(f"{label} {title}", _as(pages, outcome), ["x"] * len(pages))
    share = Counter(pages[i]["type"] for i, k in enumerate(chosen) if k == "dom")
    print(f"  dom chosen on {sum(share.values())} pages: {dict(share)}")
    print(f"  objective {_objective(result):.4f}", flush=True)
    return result, chosen


def main() -> int:
    from bench import dom_reading_time  # it reads this module's helpers

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--rebuild", action="store_true", help="segment the pages again")
    parser.add_argument(
        "--rules",
        default="0.5",
        help="dom reading thresholds to measure: 'T' for every page or 'A/O/N' by declared "
        "type (article/other/none), comma-separated",
    )
    parser.add_argument(
        "--summary", action="store_true", help="chooser sees the dom model's summary"
    )
    parser.add_argument(
        "--skip-chrome",
        action="store_true",
        help="skip navigation, headers, footers and chrome-named boxes as the region reader does",
    )
    parser.add_argument(
        "--boost",
        type=float,
        default=1.0,
        help="weigh the blocks of WCXB product, collection, listing and service pages this "
        "much more in training the DOM-block model",
    )
    parser.add_argument(
        "--without",
        default="",
        help="block features (comma-separated) the DOM-block model goes without",
    )
    parser.add_argument(
        "--no-trafilatura",
        default="",
        help="also measure choosers without trafilatura's reading, comma-separated: "
        "'article' (region, block, dom; the DOM-block model without the article's "
        "features), 'shares' (the same, every containment feature left out too), 'free' "
        "(region and dom only, the DOM-block model without the article's or the block "
        "reading's features: the block reading is read from the element enclosing the "
        "article's paragraphs)",
    )
    parser.add_argument(
        "--time", type=int, default=0, help="also time the dom reading on N WCXB pages"
    )
    options = parser.parse_args()

    pages = collect(options.jobs, False)
    truths = [Truth(load_truth(p["corpus"], p["id"])) for p in pages]
    data = segment_all(pages, options.jobs, options.rebuild, not options.skip_chrome)
    names = segment_names(pages)
    fold_of = folds(pages)
    for page, d in zip(pages, data, strict=True):
        if page["type"] in BOOSTED:
            d["boost"] = options.boost
    variants = [name for name in options.no_trafilatura.split(",") if name]
    unknown = sorted(set(variants) - set(NO_TRAFILATURA))
    if unknown:
        parser.error(f"--no-trafilatura: unknown {', '.join(unknown)}; say article, shares or free")
    left_out = [name for name in options.without.split(",") if name]
    if left_out:
        data = without_columns(data, names, left_out)
    if options.time:
        print(f"CPU time per page, {options.time} WCXB pages:")
        first = float(options.rules.split(",")[0].split("/")[0])
        if "free" in variants:
            # The path without trafilatura's reading; the four-way one is timed without it.
            dom_reading_time.timing_free(
                pages, data, names, options.time, not options.skip_chrome, first
            )
        else:
            dom_reading_time.timing(
                pages, data, names, options.time, not options.skip_chrome, first
            )
    print(f"{len(pages)} pages; five folds grouped by site, held-out figures:")
    chances = heldout_chances(data, names, fold_of, options.rebuild, not options.skip_chrome)
    shipped = shipped_scores(pages, truths, fold_of, options.rebuild)
    chosen3 = [""] * len(pages)
    for fold in range(FOLDS):
        chooser = fit([p for p, f in zip(pages, fold_of, strict=True) if f != fold])
        for index, page in enumerate(pages):
            if fold_of[index] == fold:
                chosen3[index] = pick(chooser, page)
    base = report(
        "shipped (held out)",
        _as(pages, [shipped(i, k) for i, k in enumerate(chosen3)]),
        ["x"] * len(pages),
    )
    print(f"  objective {_objective(base):.4f}", flush=True)
    for text in options.rules.split(","):
        values = [float(v) for v in text.split("/")]
        if len(values) == 1:
            values *= 3
        rule = dict(zip(("article", "other", "none"), values, strict=True))
        evaluate(text, pages, truths, data, chances, fold_of, rule, shipped, options.summary)
        shipped.save()  # type: ignore[attr-defined]
    for name in variants:
        features, kinds = NO_TRAFILATURA[name]
        dropped = sorted({*left_out, *features})
        print(f"Without trafilatura's reading ({name}): {kinds}, the DOM-block model without")
        print(f"  {dropped}", flush=True)
        reduced = heldout_chances(
            without_columns(data, names, dropped),
            names,
            fold_of,
            options.rebuild,
            not options.skip_chrome,
        )
        for text in options.rules.split(","):
            values = [float(v) for v in text.split("/")]
            if len(values) == 1:
                values *= 3
            rule = dict(zip(("article", "other", "none"), values, strict=True))
            evaluate(
                text,
                pages,
                truths,
                data,
                reduced,
                fold_of,
                rule,
                shipped,
                options.summary,
                kinds,
                f"{len(kinds)}-way {name}",
            )
            shipped.save()  # type: ignore[attr-defined]
    return 0


def without_columns(
    data: list[dict[str, Any]], names: list[str], left_out: list[str]
) -> list[dict[str, Any]]:
    """The pages' blocks with the ``left_out`` features missing (copies: ``data`` keeps
    them)."""
    columns = [names.index(name) for name in left_out]
    result = []
    for d in data:
        if d["rows"] is None:
            result.append(d)
            continue
        rows = d["rows"].copy()
        rows[:, columns] = math.nan
        result.append({**d, "rows": rows, "without": left_out})
    return result


def _as(pages: list[dict[str, Any]], scores: list[dict[str, float]]) -> list[dict[str, Any]]:
    return [{**p, "scores": {"x": s}} for p, s in zip(pages, scores, strict=True)]


def _objective(result: dict[str, Any]) -> float:
    return statistics.fmean([result["wcxb"]["overall"], result["trafilatura_eval"]["f1"]])


if __name__ == "__main__":
    sys.exit(main())
