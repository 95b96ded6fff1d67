"""Focused reading: does a small budget of ``web.fetch`` with ``focus`` hold the answer?

    PYTHONPATH=src:. .venv/bin/python bench/focus_reading.py [--data ../shared/bench/focus]

Against the first N characters and BM25 over paragraphs, same run. Method:
docs/benchmarks.md, "Focused reading".
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import re
import sys
import time
from collections import defaultdict
from functools import partial
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from spyglass.capabilities.fetch import fitted  # noqa: E402
from spyglass.extract import to_document  # noqa: E402
from spyglass.extract.document import MediaType  # noqa: E402
from spyglass.extract.focus import terms  # noqa: E402
from spyglass.fetch.page import ReadPage  # noqa: E402

BUDGETS = (1000, 2000, 4000)
SETS = ("covid-qa", "squad-v1.1")
MAX_BYTES = 450_000
#: "whole text": the answer is in the page's text at all (the ceiling extraction leaves).
METHODS = ("focus", "BM25 paragraphs", "first-N", "whole text")
_SPACE = re.compile(r"\s+")
_FACTOID = re.compile(r"^\W*(who|whom|whose|what|when|where|which)\b", re.IGNORECASE)


def norm(text: str) -> str:
    return _SPACE.sub(" ", text.lower())


def kind(question: str) -> str:
    return "who/what/when" if _FACTOID.match(question) else "why/how/other"


def read_page(doc_id: str, html: bytes) -> ReadPage:
    url = f"https://pages.example/{doc_id}"
    document = to_document(html, MediaType("text/html", "utf-8"), url)
    return ReadPage(url, url, 200, "text/html", document, False, (), "2026-01-01T00:00:00Z")


def first_n(text: str, budget: int) -> str:
    return text[:budget]


def paragraphs_of(text: str) -> tuple[list[str], list[list[str]]]:
    paragraphs = [p for p in text.split("\n\n") if p.strip()]
    return paragraphs, [terms(p) for p in paragraphs]


def bm25_paragraphs(
    cut: tuple[list[str], list[list[str]]], question: str, budgets: tuple[int, ...]
) -> list[str]:
    """The baseline: the page's paragraphs (split at blank lines), best BM25 first."""
    paragraphs, docs = cut
    query = set(terms(question))
    n = len(docs)
    average = max(1.0, sum(map(len, docs)) / max(1, n))
    df = {t: sum(1 for d in docs if t in d) for t in query}
    scores = []
    for words in docs:
        counts: dict[str, int] = defaultdict(int)
        for w in words:
            if w in query:
                counts[w] += 1
        norm_len = 1.2 * (0.25 + 0.75 * len(words) / average)
        scores.append(
            sum(
                math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5)) * f * 2.2 / (f + norm_len)
                for t, f in counts.items()
            )
        )
    reads = []
    for budget in budgets:
        out, used = [], 0
        for i in sorted(range(n), key=lambda i: -scores[i]):
            if used + len(paragraphs[i]) + 2 <= budget:
                out.append(paragraphs[i])
                used += len(paragraphs[i]) + 2
        reads.append("\n\n".join(out))
    return reads


def read_once(doc_id: str, html: bytes, budget: int, focus: str | None) -> None:
    """What ``web.fetch`` does with a downloaded page: read it, then build the result."""
    fitted(read_page(doc_id, html), 0, budget, MAX_BYTES, focus=focus)


def fastest(*reads: Any) -> list[float]:
    """The least CPU time of five runs of each read, run in turn: CPU time, not wall time,
    so that other work on a shared machine does not decide it."""
    times: list[list[float]] = [[] for _ in reads]
    for _ in range(5):
        for read, kept in zip(reads, times, strict=True):
            start = time.process_time()
            read()
            kept.append(time.process_time() - start)
    return [min(kept) for kept in times]


def answered(returned: str, answers: list[str]) -> bool:
    text = norm(returned)
    return any(norm(a).strip() in text for a in answers)


def run_set(folder: Path, limit: int | None) -> tuple[dict[str, Any], list[float]]:
    questions = [json.loads(line) for line in (folder / "questions.jsonl").open()]
    if limit:
        questions = questions[:limit]
    by_doc: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for q in questions:
        by_doc[q["doc_id"]].append(q)
    # Pages at odd places in doc_id order were held out while tuning (docs/benchmarks.md).
    held_out = set(sorted(by_doc)[1::2])
    hits: dict[tuple[str, str, int], int] = defaultdict(int)
    totals: dict[str, int] = defaultdict(int)
    ratios = []
    for doc_id, asked in by_doc.items():
        html = gzip.decompress((folder / "docs" / f"{doc_id}.html.gz").read_bytes())
        # Time: a plain read (extraction and the part) against a focused one, same page.
        focus = asked[0]["question"]
        plain, focused = fastest(
            partial(read_once, doc_id, html, 20000, None),
            partial(read_once, doc_id, html, 4000, focus),
        )
        ratios.append(focused / plain)
        page = read_page(doc_id, html)
        text = page.document.text
        cut = paragraphs_of(text)
        for q in asked:
            groups = ("all", kind(q["question"])) + (("held-out",) * (doc_id in held_out))
            for group in groups:
                totals[group] += 1
            if answered(text, q["answers"]):
                for budget, group in ((b, g) for b in BUDGETS for g in groups):
                    hits[("whole text", group, budget)] += 1
            baseline = bm25_paragraphs(cut, q["question"], BUDGETS)
            for budget, bm25 in zip(BUDGETS, baseline, strict=True):
                result = fitted(page, 0, budget, MAX_BYTES, focus=q["question"])
                assert len(result["text"]) <= budget, (doc_id, len(result["text"]))
                runs = {
                    "focus": result["text"],
                    "first-N": first_n(text, budget),
                    "BM25 paragraphs": bm25,
                }
                for method, returned in runs.items():
                    for group in groups if answered(returned, q["answers"]) else ():
                        hits[(method, group, budget)] += 1
    table = {key: hits[key] / totals[key[1]] for key in hits}
    for method in METHODS:
        for k in totals:
            for budget in BUDGETS:
                table.setdefault((method, k, budget), 0.0)
    return {"table": table, "totals": dict(totals)}, ratios


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared/bench/focus")
    parser.add_argument("--limit", type=int, help="first N questions of each set")
    args = parser.parse_args()
    all_ratios: list[float] = []
    print("| set | questions | kind | method | 1,000 | 2,000 | 4,000 |")
    print("|---|---|---|---|---|---|---|")
    for name in SETS:
        report, ratios = run_set(args.data / name, args.limit)
        all_ratios += ratios
        for k in ("all", "who/what/when", "why/how/other", "held-out"):
            count = report["totals"].get(k, 0)
            if not count:
                continue
            for method in METHODS:
                cells = [f"{report['table'][(method, k, b)]:.3f}" for b in BUDGETS]
                print(f"| {name} | {count} | {k} | {method} | {' | '.join(cells)} |")
    all_ratios.sort()
    median = all_ratios[len(all_ratios) // 2]
    print(
        f"\nfocused read / plain read, time per page (extraction included), "
        f"{len(all_ratios)} pages: median {median:.3f}, worst {all_ratios[-1]:.3f}"
    )


if __name__ == "__main__":
    main()
