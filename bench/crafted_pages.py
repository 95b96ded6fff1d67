"""Time to read crafted pages as they grow: extraction must stay linear in a page's size.

    PYTHONPATH=src .venv/bin/python bench/crafted_pages.py [--sizes 100000,200000,400000]

Each case is a paragraph (or title) of a sequence that makes a naive pattern read the rest
of the line again from every occurrence (unclosed brackets, link openings, runs of
backslashes, backticks or spaces), or many small elements that make an XPath query on text
nodes merge or sort its results one at a time, or make trafilatura count its result once per
heading. Past ``MAX_ELEMENTS`` or ``MAX_PARAGRAPH_TEXTS`` (``spyglass.extract.readings``) the
article reading is left out, so those cases grow less than twofold there. Per size,
trafilatura (``extract(html, url=url, output_format="markdown")``, the peer, whose parse every
reading starts from) and :func:`spyglass.extract.html.extract_html` are timed by the thread's
CPU time: both at the largest size, their ratio, and each one's growth when the page doubles
(about 2 linear, about 4 quadratic).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from functools import partial

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


def cpu(call: Callable[[], object]) -> float:
    """The calling thread's CPU seconds for one call."""
    started = time.thread_time()
    call()
    return time.thread_time() - started


def main() -> int:
    import trafilatura

    from spyglass.extract.html import extract_html

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="100000,200000,400000", help="page sizes, ascending")
    options = parser.parse_args()
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
