"""CPU time of the dom reading's parts and of extraction with it as a fourth candidate,
beside ``extract_html`` and trafilatura (``bench/dom_reading.py --time N``; issue #12, not
shipped, see docs/benchmarks.md)."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any

from bench.dom_reading import (
    NO_TRAFILATURA,
    READINGS,
    assembled,
    fit_kinds,
    fit_segments,
    four_way,
    without_columns,
)
from bench.extraction_data import load
from spyglass.extract.features import CONTEXT_START


def trained(
    pages: list[dict[str, Any]],
    data: list[dict[str, Any]],
    names: list[str],
    kinds: tuple[str, ...],
) -> tuple[Callable[[Any], list[float]], Any]:
    """A DOM-block model trained on every page (its chances) and a chooser over ``kinds``
    trained on every page's readings with the dom reading it assembles at 0.5."""
    model = fit_segments(data, names)

    def chances(rows: Any) -> list[float]:
        return [float(v) for v in model.predict(rows, num_threads=1)]

    seen = []
    for page, d in zip(pages, data, strict=True):
        if d["rows"] is not None and len(d["labels"]):
            dom = assembled(d, model.predict(d["rows"].astype("float64"), num_threads=1), 0.5)
            seen.append(four_way(page, dom, page["scores"]["article"], kinds))
    return chances, fit_kinds(seen, kinds)


def timing(
    pages: list[dict[str, Any]],
    data: list[dict[str, Any]],
    names: list[str],
    count: int,
    chrome: bool,
    threshold: float,
) -> None:
    """CPU time of the dom reading's parts, and of extraction with it as a fourth candidate,
    beside the shipped extraction and trafilatura's default extraction, on ``count``
    evenly spread WCXB pages (the calling thread's time, page by page in turn).

    The four-way path is what ``extract_html`` would run: the three readings and their rows,
    the dom reading (segments, rows, the DOM-block model at ``threshold``), the chooser over
    four readings, and the block filter at the shipped keep threshold when the chosen
    reading is not the dom reading; then the metadata. Its models are trained on every page
    (the time does not depend on how well they decide)."""
    import numpy

    from bench.extraction_data import page_ids
    from bench.fetch_extraction import pick as spread
    from bench.segments import dom_reading, segment_rows, segments
    from spyglass.extract.blocks import keep_content
    from spyglass.extract.features import reading_rows
    from spyglass.extract.html import _base_url, _title, readings, with_fallback
    from spyglass.extract.learned import content_chances
    from spyglass.extract.metadata import page_metadata
    from spyglass.extract.readings import finish
    from spyglass.extract.thresholds import keep_threshold
    from spyglass.extract.tree import parse

    chances, chooser = trained(pages, data, names, READINGS)

    def extract_four_way(html: str, url: str) -> str:
        tree = parse(html)
        if tree is None:
            return ""
        _title(tree)
        read = readings(tree, url)
        texts = with_fallback(read.found, tree)
        base = _base_url(tree, url)
        body = tree.find(".//body")
        found = segments(body if body is not None else tree, base, chrome)
        rows = segment_rows(found, texts, read.places, read.rows[0][CONTEXT_START:])
        texts = {**texts, "dom": finish(dom_reading(found, rows, chances, threshold), base)}
        four = reading_rows(read.page, texts, read.described)
        predicted = chooser.predict(numpy.asarray(four, dtype=numpy.float64), num_threads=1)
        chosen = READINGS[max(range(4), key=lambda i: (predicted[i], -i))]
        markdown = texts[chosen]
        if chosen != "dom":
            context = read.rows[READINGS.index(chosen)]
            markdown = keep_content(
                chosen,
                texts,
                content_chances,
                keep_threshold(read.page, chosen),
                context,
                read.places,
            )
        page_metadata(tree, url)
        return markdown

    parts: dict[str, list[float]] = {
        k: [] for k in ("trafilatura", "shipped", "four-way", "segments", "rows", "model", "dom")
    }
    for page_id in spread(page_ids("wcxb"), count):
        sample = load("wcxb", page_id)
        time_paths(parts, sample.html, sample.url, {"four-way": extract_four_way})
        tree = parse(sample.html)
        if tree is None:
            continue
        read = readings(tree, sample.url)
        texts = with_fallback(read.found, tree)
        body = tree.find(".//body")
        started = time.thread_time()
        found = segments(body if body is not None else tree, _base_url(tree, sample.url), chrome)
        segmented = time.thread_time()
        rows = segment_rows(found, texts, read.places, read.rows[0][CONTEXT_START:])
        described = time.thread_time()
        dom_reading(found, rows, chances, threshold)
        ended = time.thread_time()
        parts["segments"].append(segmented - started)
        parts["rows"].append(described - segmented)
        parts["model"].append(ended - described)
        parts["dom"].append(ended - started)
    report_times(parts, {"shipped": "shipped", "four-way": "four-way"})


def time_paths(
    parts: dict[str, list[float]], html: str, url: str, others: dict[str, Callable[[str, str], Any]]
) -> None:
    """Time trafilatura's default extraction, the shipped ``extract_html`` and ``others`` on
    one page, one after another (CPU time of the calling thread), into ``parts``."""
    import trafilatura

    from spyglass.extract.html import extract_html

    paths: dict[str, Callable[[str, str], Any]] = {
        "trafilatura": lambda h, u: trafilatura.extract(h, url=u),
        "shipped": extract_html,
        **others,
    }
    for name, path in paths.items():
        started = time.thread_time()
        path(html, url)
        parts[name].append(time.thread_time() - started)


def report_times(parts: dict[str, list[float]], ratios: dict[str, str]) -> None:
    """Print each part's median against trafilatura's, then the medians of the per-page
    ratios of the paths named in ``ratios`` (key in ``parts`` → label)."""
    base = statistics.median(parts["trafilatura"])
    for name, values in parts.items():
        median = statistics.median(values)
        print(f"  {name:<12} median {median * 1000:6.1f} ms  x{median / base:.2f} trafilatura's")
    said = []
    for name, label in ratios.items():
        per_page = [v / t for v, t in zip(parts[name], parts["trafilatura"], strict=True)]
        said.append(f"{label} x{statistics.median(per_page):.2f}")
    print(f"  median of per-page ratios: {', '.join(said)}", flush=True)


def timing_free(
    pages: list[dict[str, Any]],
    data: list[dict[str, Any]],
    names: list[str],
    count: int,
    chrome: bool,
    threshold: float,
) -> None:
    """CPU time of a path that never calls trafilatura's extraction (``--no-trafilatura
    free``), beside the shipped extraction and trafilatura's default extraction, on
    ``count`` evenly spread WCXB pages (the calling thread's time, page by page in turn).

    The path: parse, the title, the page's features, the region reading, the dom reading
    (segments, rows with the article and block readings empty, the DOM-block model without
    their features at ``threshold``), the chooser over the region and dom readings, the
    shipped block filter on the region reading when it is chosen (its row that of three
    readings with two empty: the same work as a retrained filter's), then the metadata.
    Models trained on every page."""
    import numpy

    from bench.extraction_data import page_ids
    from bench.fetch_extraction import pick as spread
    from bench.segments import dom_candidate
    from spyglass.extract.block_markup import Places, text_index
    from spyglass.extract.blocks import keep_content
    from spyglass.extract.features import page_features, reading_rows
    from spyglass.extract.html import _base_url, _title
    from spyglass.extract.learned import content_chances
    from spyglass.extract.metadata import page_metadata
    from spyglass.extract.readings import finish
    from spyglass.extract.region import region_markdown
    from spyglass.extract.thresholds import keep_threshold
    from spyglass.extract.tree import parse

    features, kinds = NO_TRAFILATURA["free"]
    reduced = without_columns(data, names, features)
    chances, chooser = trained(pages, reduced, names, kinds)

    def extract_free(html: str, url: str) -> str:
        tree = parse(html)
        if tree is None:
            return ""
        _title(tree)
        base = _base_url(tree, url)
        index = text_index(tree)
        page = page_features(tree, url)
        region = finish(region_markdown(tree, base), base)
        three = {"article": "", "region": region, "block": ""}
        described: dict[str, Any] = {}
        rows = reading_rows(page, three, described)
        places = Places(index, None)
        body = tree.find(".//body")
        root = body if body is not None else tree
        context = rows[0][CONTEXT_START:]
        dom = dom_candidate(root, base, three, places, context, chances, threshold, chrome)
        two = reading_rows(page, {"region": region, "dom": dom}, described)
        predicted = chooser.predict(numpy.asarray(two, dtype=numpy.float64), num_threads=1)
        chosen = kinds[max(range(len(kinds)), key=lambda i: (predicted[i], -i))]
        markdown = dom
        if chosen == "region":
            markdown = keep_content(
                "region", three, content_chances, keep_threshold(page, "region"), rows[1], places
            )
        page_metadata(tree, url)
        return markdown

    parts: dict[str, list[float]] = {k: [] for k in ("trafilatura", "shipped", "free")}
    for page_id in spread(page_ids("wcxb"), count):
        item = load("wcxb", page_id)
        time_paths(parts, item.html, item.url, {"free": extract_free})
    report_times(parts, {"shipped": "shipped", "free": "without trafilatura"})
