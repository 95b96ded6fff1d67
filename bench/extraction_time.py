"""CPU time of web.fetch's extraction against trafilatura's, page by page in turn.

    PYTHONPATH=src .venv/bin/python bench/extraction_time.py [--wcxb 80] [--trafilatura 40]

Evenly spread pages of WCXB dev and trafilatura-eval; for each, trafilatura's default
extraction (``trafilatura.extract(html, url=url)``) then the shipped
:func:`spyglass.extract.html.extract_html`, each timed by the CPU time of the calling
thread (steadier than wall-clock on a shared machine). Prints both medians, the ratio of
the medians and the median of the per-page ratios. To compare two versions of the code,
run it from each checkout in turn (``PYTHONPATH`` at that checkout's ``src``).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.extraction_data import Page, load, page_ids  # noqa: E402


def spread(ids: list[str], count: int) -> list[str]:
    """``count`` ids evenly spread over ``ids``."""
    step = max(1, len(ids) // max(count, 1))
    return ids[::step][:count]


def main() -> int:
    import trafilatura

    from spyglass.extract.html import extract_html

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--wcxb", type=int, default=80, help="WCXB dev pages")
    parser.add_argument("--trafilatura", type=int, default=40, help="trafilatura-eval pages")
    options = parser.parse_args()
    pages: list[Page] = [load("wcxb", i) for i in spread(page_ids("wcxb"), options.wcxb)]
    pages += [load("trafilatura", i) for i in spread(page_ids("trafilatura"), options.trafilatura)]
    # Warm-up: imports, the models, lxml's and trafilatura's first-call costs.
    extract_html(pages[0].html, pages[0].url)
    trafilatura.extract(pages[0].html, url=pages[0].url)
    ours: list[float] = []
    theirs: list[float] = []
    for page in pages:
        started = time.thread_time()
        trafilatura.extract(page.html, url=page.url)
        middle = time.thread_time()
        extract_html(page.html, page.url)
        ended = time.thread_time()
        theirs.append(middle - started)
        ours.append(ended - middle)
    mine, peer = statistics.median(ours), statistics.median(theirs)
    per_page = statistics.median(o / t for o, t in zip(ours, theirs, strict=True) if t)
    print(
        f"{len(pages)} pages: trafilatura {peer * 1000:.1f} ms, ours {mine * 1000:.1f} ms "
        f"(x{mine / peer:.2f} the median; per-page ratios x{per_page:.2f})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
