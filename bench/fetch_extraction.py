"""Extraction quality, speed and memory of web.fetch against peers, on WCXB and trafilatura-eval.

    .venv/bin/python bench/fetch_extraction.py [--corpus wcxb|trafilatura] [--limit N]
        [--jobs J] [--systems ours,trafilatura,...] [--json]

``--dump OUT.jsonl [--pages 300,200] [--compare EARLIER.jsonl]`` writes what extraction
returns, one JSON line a page; with ``--compare`` it lists every page whose output differs
and exits 1 if any does. Method: docs/benchmarks.md, "Extraction quality".
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.extraction_data import LONGER, load, page_ids, shingle_figures  # noqa: E402

# -- the systems ----------------------------------------------------------------------------


def ours(html: str, url: str) -> dict[str, str]:
    from spyglass.extract.html import extract_html

    extracted = extract_html(html, url)
    return {"ours": extracted.markdown, "ours+header": extracted.text}


def trafilatura_default(html: str, url: str) -> dict[str, str]:
    import trafilatura

    return {"trafilatura": trafilatura.extract(html, url=url) or ""}


SYSTEMS: dict[str, Callable[[str, str], dict[str, str]]] = {
    "ours": ours,
    "trafilatura": trafilatura_default,
}


# -- running --------------------------------------------------------------------------------


def score_page(args: tuple[str, str, list[str]]) -> list[dict[str, Any]]:
    corpus, page_id, systems = args
    page = load(corpus, page_id)
    rows = []
    for name in systems:
        started = time.perf_counter()
        try:
            outputs = SYSTEMS[name](page.html, page.url)
            failed = False
        except Exception:  # a peer crashing on a page is a data point, not the end of the run
            outputs, failed = {name: ""}, True
        elapsed = (time.perf_counter() - started) * 1000
        for variant, output in outputs.items():
            rows.append(
                {
                    "id": page_id,
                    "type": page.type,
                    "system": variant,
                    "ms": elapsed,
                    "failed": failed,
                    **page.score(output),
                }
            )
    return rows


def pick(ids: list[str], limit: int | None) -> list[str]:
    """Every k-th page, so a limited run still covers all page types."""
    if not limit or limit >= len(ids):
        return ids
    step = len(ids) / limit
    return [ids[int(i * step)] for i in range(limit)]


def mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else float("nan")


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    by: dict[str, dict[str, list[dict[str, Any]]]] = defaultdict(lambda: defaultdict(list))
    for row in rows:
        by[row["system"]]["overall"].append(row)
        by[row["system"]][row["type"]].append(row)
    summary: dict[str, Any] = {}
    for system, groups in by.items():
        summary[system] = {}
        for group, items in groups.items():
            tp, fn = sum(r["tp"] for r in items), sum(r["fn"] for r in items)
            fp, tn = sum(r["fp"] for r in items), sum(r["tn"] for r in items)
            precision = tp / (tp + fp) if tp + fp else 0.0
            recall = tp / (tp + fn) if tp + fn else 0.0
            withs = [r["tp"] / (r["tp"] + r["fn"]) for r in items if r["tp"] + r["fn"]]
            withouts = [r["fp"] / (r["fp"] + r["tn"]) for r in items if r["fp"] + r["tn"]]
            entry = {
                "pages": len(items),
                "with_hit": mean(withs),
                "without_hit": mean(withouts),
                "without_pooled": fp / (fp + tn) if fp + tn else 0.0,
                "snippet_precision": precision,
                "snippet_recall": recall,
                "snippet_f1": 2 * precision * recall / (precision + recall)
                if precision + recall
                else 0.0,
                "median_ms": statistics.median(r["ms"] for r in items),
                "median_length_ratio": statistics.median(r["length_ratio"] for r in items),
                "failures": sum(r["failed"] for r in items),
            }
            if "precision" in items[0]:
                entry["f1"] = mean([r["f1"] for r in items])
                entry["precision"] = mean([r["precision"] for r in items])
                entry["recall"] = mean([r["recall"] for r in items])
                counts = [(r["shingle_tp"], r["shingle_fp"], r["shingle_fn"]) for r in items]
                entry.update(shingle_figures(counts))
                entry["longer_than_1_5"] = sum(r["length_ratio"] > LONGER for r in items)
            summary[system][group] = entry
    return summary


def dump(path: Path, counts: str, earlier: Path | None) -> int:
    from spyglass.extract.html import extract_html

    lines = []
    for corpus, count in zip(("wcxb", "trafilatura"), counts.split(","), strict=True):
        for page_id in pick(page_ids(corpus), int(count)):
            page = load(corpus, page_id)
            got = extract_html(page.html, page.url)
            lines.append(
                {"corpus": corpus, "id": page_id, "title": got.title, "markdown": got.markdown}
                | {"text": got.text}
            )
    path.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines))
    print(f"{len(lines)} pages written to {path}")
    if earlier is None:
        return 0
    before = {(e["corpus"], e["id"]): e for e in map(json.loads, earlier.read_text().splitlines())}
    differ = [f"{n['corpus']}/{n['id']}" for n in lines if before.get((n["corpus"], n["id"])) != n]
    print("".join(f"differs: {name}\n" for name in differ), end="")
    print(f"{len(differ)} of {len(lines)} pages differ from {earlier}")
    return 1 if differ else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", choices=["wcxb", "trafilatura"], default="wcxb")
    parser.add_argument("--limit", type=int, default=None, help="score only N evenly spread pages")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (timing is per page)")
    parser.add_argument("--systems", default="ours,trafilatura")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    parser.add_argument("--dump", type=Path, help="write the outputs instead (see above)")
    parser.add_argument("--pages", default="300,200", help="with --dump: WCXB,trafilatura-eval")
    parser.add_argument("--compare", type=Path, help="with --dump: an earlier dump")
    options = parser.parse_args()
    if options.dump:
        return dump(options.dump, options.pages, options.compare)
    systems = [s.strip() for s in options.systems.split(",") if s.strip()]
    unknown = [s for s in systems if s not in SYSTEMS]
    if unknown:
        print(f"unknown systems {unknown}; choose from {sorted(SYSTEMS)}", file=sys.stderr)
        return 2
    try:
        ids = page_ids(options.corpus)
    except FileNotFoundError as exc:
        print(f"no data for {options.corpus}: {exc}", file=sys.stderr)
        return 2
    ids = pick(ids, options.limit)
    work = [(options.corpus, page_id, systems) for page_id in ids]
    rows: list[dict[str, Any]] = []
    if options.jobs > 1:
        with ProcessPoolExecutor(options.jobs) as pool:
            for page_rows in pool.map(score_page, work, chunksize=4):
                rows.extend(page_rows)
    else:
        for item in work:
            rows.extend(score_page(item))
    summary = summarise(rows)
    if options.json:
        print(json.dumps(summary, indent=2))
        return 0
    print_summary(options.corpus, len(ids), summary)
    return 0


def print_summary(corpus: str, pages: int, summary: dict[str, Any]) -> None:
    name = "WCXB dev" if corpus == "wcxb" else "trafilatura-eval"
    print(f"{name}: {pages} pages, systems measured in the same run")
    print(
        f"{'system':<17} {'group':<14} {'pages':>5} {'F1':>6} {'P':>6} {'R':>6} "
        f"{'with':>6} {'w/out':>6} {'snipP':>6} {'snipR':>6} {'snipF1':>6} {'ms':>7} {'len':>5}"
    )
    for system, groups in summary.items():
        order = ["overall", *sorted(g for g in groups if g != "overall")]
        for group in order:
            g = groups[group]
            word = (
                f"{g['f1']:>6.3f} {g['precision']:>6.3f} {g['recall']:>6.3f}"
                if "f1" in g
                else f"{'-':>6} {'-':>6} {'-':>6}"
            )
            print(
                f"{system:<17} {group:<14} {g['pages']:>5} {word} {g['with_hit']:>6.3f} "
                f"{g['without_hit']:>6.3f} {g['snippet_precision']:>6.3f} "
                f"{g['snippet_recall']:>6.3f} {g['snippet_f1']:>6.3f} {g['median_ms']:>7.1f} "
                f"{g['median_length_ratio']:>5.2f}"
            )
    if any("shingle_f1" in groups["overall"] for groups in summary.values()):
        print_shingles(summary)
    if "ours" in summary and "trafilatura" in summary:
        a, b = summary["ours"]["overall"], summary["trafilatura"]["overall"]
        key = "f1" if "f1" in a else "snippet_f1"
        print(
            f"\nours vs trafilatura: {key} {a[key] - b[key]:+.3f}, "
            f"median time x{a['median_ms'] / b['median_ms']:.2f}"
        )


def print_shingles(summary: dict[str, Any]) -> None:
    """The article-extraction benchmark's figures (four-word shingles) by group, and how many
    pages come out longer than one and a half times their reference."""
    print("\nshingle F1 (four words in a row, case kept; Scrapinghub's benchmark's measure)")
    print(
        f"{'system':<17} {'group':<14} {'pages':>5} {'F1':>6} {'P':>6} {'R':>6} {f'>{LONGER}x':>6}"
    )
    for system, groups in summary.items():
        order = ["overall", *sorted(g for g in groups if g != "overall")]
        for group in order:
            g = groups[group]
            print(
                f"{system:<17} {group:<14} {g['pages']:>5} {g['shingle_f1']:>6.3f} "
                f"{g['shingle_precision']:>6.3f} {g['shingle_recall']:>6.3f} "
                f"{g['longer_than_1_5']:>6}"
            )


if __name__ == "__main__":
    sys.exit(main())
