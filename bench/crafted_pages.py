"""Time to read crafted pages as they grow: extraction must stay linear in a page's size.

    PYTHONPATH=src .venv/bin/python bench/crafted_pages.py [--sizes 100000,200000,400000]
    PYTHONPATH=src .venv/bin/python bench/crafted_pages.py --corpora 80,40
    PYTHONPATH=src .venv/bin/python bench/crafted_pages.py --cap [--cap-size 5000000]

Against trafilatura, timed by the thread's CPU time; ``--cap`` reads each page in a fresh
process for its peak memory. Method: docs/benchmarks.md, "Pages read in time linear in their
size" and "Pages at the size cap".
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

URL = "https://example.com/a"


def paragraph(piece: str) -> Callable[[int], str]:
    """A page whose article is one paragraph of ``piece`` repeated to ``size`` characters."""

    def page(size: int) -> str:
        text = (piece * (size // len(piece) + 1))[:size]
        escaped = text.replace("&", "&amp;").replace("<", "&lt;")
        return f"<html><body><article><h1>Crafted</h1><p>{escaped}</p></article></body></html>"

    return page


def code(piece: str) -> Callable[[int], str]:
    """A page whose article is one ``<code>`` element of ``piece`` repeated to ``size``."""

    def page(size: int) -> str:
        text = (piece * (size // len(piece) + 1))[:size]
        return f"<html><body><article><p>See <code>{text}</code></p></article></body></html>"

    return page


def title(piece: str) -> Callable[[int], str]:
    """A short article under a ``<title>`` of ``piece`` repeated to ``size`` characters."""

    def page(size: int) -> str:
        text = (piece * (size // len(piece) + 1))[:size]
        body = "<p>" + "A sentence of the article. " * 20 + "</p>"
        head = f"<head><title>T{text}x</title></head>"
        return f"<html>{head}<body><article>{body}</article></body></html>"

    return page


def elements(piece: str, holder: str = "article") -> Callable[[int], str]:
    """A page whose ``holder`` is ``piece`` (markup, ``{i}`` numbering each copy) repeated
    until the markup is ``size`` characters long."""

    def page(size: int) -> str:
        copies = max(1, size // len(piece.format(i=0)))
        inside = "".join(piece.format(i=i) for i in range(copies))
        return f"<html><body><{holder}>{inside}</{holder}></body></html>"

    return page


CASES: dict[str, Callable[[int], str]] = {
    "unclosed brackets": paragraph("["),
    "image openings": paragraph("!["),
    "link openings": paragraph("]("),
    "angle targets": paragraph("](<"),
    "labels, no target": paragraph("[b]("),
    "backslashes": paragraph("\\"),
    "escaped brackets": paragraph("\\["),
    "backticks in code": code("`"),
    "growing tick runs": code("a``"),
    "spaces in a title": title(" "),
    "list of links": elements("<li><a href='/p{i}'>item {i}</a> text of the item</li>", "ul"),
    "paragraphs of links": elements("<p><a href='/p{i}'>link {i}</a> and <b>x</b> text</p>"),
    "spans in a paragraph": elements("<span>w{i}</span>", "p"),
    "comments between words": elements("<!-- c -->w ", "p"),
    "breaks in a paragraph": elements("<br> ", "p"),
    "headings": elements("<h2>H{i}</h2>"),
    "nested links": elements("<a href='/{i}'>x<span><a href='/y{i}'>z</a></span></a>"),
    "table cells": elements("<tr><td>a{i}</td><td>b</td></tr>", "table"),
    "deep divs": elements("<div>" * 100 + "text {i}" + "</div>" * 100),
}


#: Pages at the cap: each is cut at the size asked for, as the fetcher cuts a longer body.
CAP_CASES: dict[str, Callable[[int], str]] = {
    "one long paragraph": paragraph("A sentence of a paragraph that goes on to the cap. "),
    "deep nesting": elements("<div>" * 250 + "text {i}" + "</div>" * 250),
    "many small blocks": elements("<p>Block {i}, a short line of text.</p>"),
    "a huge table": elements("<tr><td>{i}</td><td>a cell</td><td>another cell</td></tr>", "table"),
}


def read_in_this_process(side: str, case: str, size: int) -> dict[str, float]:
    """Read the ``case`` page of ``size`` characters with ``side`` (after a warm-up) and say
    what it cost this process: CPU and wall seconds, peak and grown RSS in MB."""
    html = CAP_CASES[case](size)[:size]
    if side == "ours":
        from spyglass.extract.html import extract_html as ours

        read: Callable[[str], object] = partial(ours, url=URL)
    else:
        import trafilatura

        read = partial(trafilatura.extract, url=URL)
    read(paragraph("A warm-up sentence. ")(2000))
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    started, wall = time.process_time(), time.perf_counter()
    read(html)
    cpu_s, wall_s = time.process_time() - started, time.perf_counter() - wall
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"cpu": cpu_s, "wall": wall_s, "peak": peak, "grown": peak - before}


def at_cap(size: int, cases: list[str] | None = None) -> dict[str, dict[str, dict[str, float]]]:
    """Each cap case read by each side in a fresh process, trafilatura first."""
    found: dict[str, dict[str, dict[str, float]]] = {}
    for case in cases or CAP_CASES:
        found[case] = {}
        for side in ("trafilatura", "ours"):
            child = [sys.executable, __file__, "--child", side, case, "--cap-size", str(size)]
            done = subprocess.run(child, capture_output=True, text=True, check=True)
            found[case][side] = json.loads(done.stdout)
    return found


def print_at_cap(size: int) -> None:
    print(f"pages of {size:,} characters, each side in a fresh process")
    print(
        f"{'case':<20} {'ours s':>7} {'peer s':>7} {'ratio':>6} {'ours MB':>8} {'peer MB':>8} "
        f"{'ratio':>6} {'grown':>6} {'peer grown':>10}"
    )
    for case, sides in at_cap(size).items():
        a, b = sides["ours"], sides["trafilatura"]
        print(
            f"{case:<20} {a['cpu']:>7.2f} {b['cpu']:>7.2f} {a['cpu'] / b['cpu']:>6.2f} "
            f"{a['peak']:>8.1f} {b['peak']:>8.1f} {a['peak'] / b['peak']:>6.2f} "
            f"{a['grown']:>6.1f} {b['grown']:>10.1f}"
        )


def corpora(counts: str) -> None:
    import trafilatura

    from spyglass.extract.html import extract_html

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from bench.extraction_data import load, page_ids
    from bench.fetch_extraction import pick

    sets = zip(("wcxb", "trafilatura"), counts.split(","), strict=True)
    pages = [load(name, i) for name, count in sets for i in pick(page_ids(name), int(count))]
    # Warm-up: imports, the models, lxml's and trafilatura's first-call costs.
    extract_html(pages[0].html, pages[0].url)
    trafilatura.extract(pages[0].html, url=pages[0].url)
    ours: list[float] = []
    theirs: list[float] = []
    for page in pages:
        theirs.append(cpu(partial(trafilatura.extract, page.html, url=page.url)))
        ours.append(cpu(partial(extract_html, page.html, page.url)))
    mine, peer = statistics.median(ours), statistics.median(theirs)
    per_page = statistics.median(o / t for o, t in zip(ours, theirs, strict=True) if t)
    print(
        f"{len(pages)} pages: trafilatura {peer * 1000:.1f} ms, ours {mine * 1000:.1f} ms "
        f"(x{mine / peer:.2f} the median; per-page ratios x{per_page:.2f})"
    )


def cpu(call: Callable[[], object]) -> float:
    """The calling thread's CPU seconds for one call."""
    started = time.thread_time()
    call()
    return time.thread_time() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="100000,200000,400000", help="page sizes, ascending")
    parser.add_argument("--cap", action="store_true", help="pages at the cap, memory too")
    parser.add_argument("--cap-size", type=int, default=5_000_000, help="fetch.max_page_bytes")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    parser.add_argument("--corpora", help="WCXB,trafilatura-eval pages to time instead")
    options = parser.parse_args()
    if options.corpora:
        corpora(options.corpora)
        return 0
    if options.child:
        side, case = options.child
        print(json.dumps(read_in_this_process(side, case, options.cap_size)))
        return 0
    if options.cap:
        print_at_cap(options.cap_size)
        return 0
    import trafilatura

    from spyglass.extract.html import extract_html

    sizes = [int(size) for size in options.sizes.split(",")]
    # Warm-up: imports, the models, lxml's and trafilatura's first-call costs.
    warm = paragraph("word ")(2000)
    extract_html(warm, URL)
    trafilatura.extract(warm, url=URL, output_format="markdown")
    print(
        f"{'case':<24} {'ours s':>8} {'peer s':>8} {'ratio':>6} {'growth':>7} {'peer growth':>12}"
    )
    worst = 0.0
    for name, build in CASES.items():
        ours: list[float] = []
        theirs: list[float] = []
        for size in sizes:
            html = build(size)
            peer = partial(trafilatura.extract, html, url=URL, output_format="markdown")
            theirs.append(cpu(peer))
            ours.append(cpu(partial(extract_html, html, URL)))
        growth = ours[-1] / ours[-2] if len(sizes) > 1 and ours[-2] else float("nan")
        peer_growth = theirs[-1] / theirs[-2] if len(sizes) > 1 and theirs[-2] else float("nan")
        worst = max(worst, growth)
        ratio = ours[-1] / theirs[-1] if theirs[-1] else float("nan")
        print(
            f"{name:<24} {ours[-1]:>8.3f} {theirs[-1]:>8.3f} {ratio:>6.2f}"
            f" {growth:>7.2f} {peer_growth:>12.2f}"
        )
    print(f"largest page {sizes[-1]} characters; worst growth on doubling {worst:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
