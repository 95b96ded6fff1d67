"""Extraction quality and speed of web.fetch on WCXB (dev split), against two peers.

    .venv/bin/python bench/fetch_extraction.py [--limit N] [--half odd|even] [--jobs J] [--json]

Systems, all measured in the same run on the same pages:

- ``ours``: :func:`spyglass.fetch.extract.extract_html` (what ``web.fetch`` returns);
- ``trafilatura``: ``trafilatura.extract(html, url=url)`` with its defaults;
- ``readability``: readabilipy (Mozilla Readability through node, as the official MCP
  fetch server does) + markdownify with ATX headings.

Metric (see the data's README): word-level F1 per page, averaged; precision, recall;
``with``/``without`` snippet hit rates; median milliseconds per page; output length as a
ratio of the reference length. Markdown is scored after dropping link and image targets.

The data folder defaults to ``../shared/bench/wcxb-dev`` next to the repository; set
``SPYGLASS_WCXB`` to use another. WCXB v1.0 is by Murrough Foley, CC-BY-4.0.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import statistics
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATA = ROOT.parent / "shared" / "bench" / "wcxb-dev"

_IMAGE = re.compile(r"!\[([^\]]*)\]\((?:<[^>]*>|[^()\s]*(?:\([^()\s]*\)[^()\s]*)*)[^)]*\)")
_LINK = re.compile(r"\[([^\]]*)\]\((?:<[^>]*>|[^()\s]*(?:\([^()\s]*\)[^()\s]*)*)[^)]*\)")
_AUTOLINK = re.compile(r"<https?://[^>\s]+>")
_BARE_URL = re.compile(r"https?://\S+")
_EMPHASIS = re.compile(r"(\*\*|__|\*|`+|~~)")
_LINE_MARKERS = re.compile(r"(?m)^\s*(?:#{1,6}\s+|>\s?|[-*+]\s+|\d+[.)]\s+)")
_TABLE_RULE = re.compile(r"(?m)^\s*\|?\s*:?-{3,}.*$")
_WORD = re.compile(r"\w+")
_SPACE = re.compile(r"\s+")


def plain(markdown: str) -> str:
    """Markdown as the words a reader sees: link and image targets dropped, text kept."""
    text = _IMAGE.sub(r"\1", markdown)
    text = _LINK.sub(r"\1", text)
    text = _AUTOLINK.sub(" ", text)
    text = _BARE_URL.sub(" ", text)
    text = _TABLE_RULE.sub("", text)
    text = _LINE_MARKERS.sub("", text)
    text = _EMPHASIS.sub("", text)
    return text.replace("|", " ")


def tokens(text: str) -> Counter[str]:
    # Underscores are emphasis in Markdown; \w would glue them to words.
    return Counter(_WORD.findall(text.lower().replace("_", " ")))


def f1(predicted: str, reference: str) -> tuple[float, float, float]:
    p_tokens, r_tokens = tokens(predicted), tokens(reference)
    p_total, r_total = sum(p_tokens.values()), sum(r_tokens.values())
    if p_total == 0 and r_total == 0:
        return 1.0, 1.0, 1.0
    if p_total == 0 or r_total == 0:
        return 0.0, 0.0, 0.0
    overlap = sum((p_tokens & r_tokens).values())
    precision, recall = overlap / p_total, overlap / r_total
    if overlap == 0:
        return 0.0, precision, recall
    return 2 * precision * recall / (precision + recall), precision, recall


def normalised(text: str) -> str:
    return _SPACE.sub(" ", text.lower()).strip()


def snippet_rate(snippets: list[str], text: str) -> float | None:
    if not snippets:
        return None
    haystack = normalised(text)
    return sum(normalised(s) in haystack for s in snippets) / len(snippets)


# -- the systems ----------------------------------------------------------------------------


def ours(html: str, url: str) -> str:
    from spyglass.fetch.extract import extract_html

    return extract_html(html, url).markdown


def trafilatura_default(html: str, url: str) -> str:
    import trafilatura

    return trafilatura.extract(html, url=url) or ""


def readability_markdownify(html: str, url: str) -> str:
    from markdownify import markdownify
    from readabilipy import simple_json_from_html_string

    article = simple_json_from_html_string(html, use_readability=True)
    content = article.get("content") or ""
    return markdownify(content, heading_style="ATX") if content else ""


SYSTEMS: dict[str, Callable[[str, str], str]] = {
    "ours": ours,
    "trafilatura": trafilatura_default,
    "readability": readability_markdownify,
}


# -- running --------------------------------------------------------------------------------


def load(data: Path, file_id: str) -> tuple[str, str, str, dict[str, Any]]:
    truth = json.loads((data / "ground-truth" / f"{file_id}.json").read_text(encoding="utf-8"))
    html = gzip.decompress((data / "html" / f"{file_id}.html.gz").read_bytes()).decode(
        "utf-8", errors="replace"
    )
    kind = truth["_internal"]["page_type"]["primary"]
    return html, truth.get("url") or "https://example.com/", kind, truth["ground_truth"]


def score_page(args: tuple[str, str, list[str]]) -> list[dict[str, Any]]:
    data, file_id, systems = Path(args[0]), args[1], args[2]
    html, url, kind, truth = load(data, file_id)
    reference = truth.get("main_content") or ""
    rows = []
    for name in systems:
        started = time.perf_counter()
        try:
            output = SYSTEMS[name](html, url)
            failed = False
        except Exception:  # a peer crashing on a page is a data point, not the end of the run
            output, failed = "", True
        elapsed = (time.perf_counter() - started) * 1000
        text = plain(output)
        score, precision, recall = f1(text, reference)
        rows.append(
            {
                "id": file_id,
                "type": kind,
                "system": name,
                "f1": score,
                "precision": precision,
                "recall": recall,
                "with": snippet_rate(truth.get("with") or [], text),
                "without": snippet_rate(truth.get("without") or [], text),
                "ms": elapsed,
                "length_ratio": len(output) / max(len(reference), 1),
                "failed": failed,
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


def summarise(rows: list[dict[str, Any]], systems: list[str]) -> dict[str, Any]:
    by: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by[(row["system"], "overall")].append(row)
        by[(row["system"], row["type"])].append(row)
    summary: dict[str, Any] = {}
    for system in systems:
        groups = {}
        for (name, group), items in sorted(by.items()):
            if name != system:
                continue
            withs = [r["with"] for r in items if r["with"] is not None]
            withouts = [r["without"] for r in items if r["without"] is not None]
            groups[group] = {
                "pages": len(items),
                "f1": mean([r["f1"] for r in items]),
                "precision": mean([r["precision"] for r in items]),
                "recall": mean([r["recall"] for r in items]),
                "with_hit": mean(withs),
                "without_hit": mean(withouts),
                "median_ms": statistics.median(r["ms"] for r in items),
                "median_length_ratio": statistics.median(r["length_ratio"] for r in items),
                "failures": sum(r["failed"] for r in items),
            }
        summary[system] = groups
    return summary


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--limit", type=int, default=None, help="score only N evenly spread pages")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (timing is per page)")
    parser.add_argument("--systems", default="ours,trafilatura,readability")
    parser.add_argument(
        "--half",
        choices=["all", "odd", "even"],
        default="all",
        help="odd-numbered pages (for development) or even-numbered ones (held out)",
    )
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    options = parser.parse_args()
    data = Path(os.environ.get("SPYGLASS_WCXB", DEFAULT_DATA))
    if not (data / "ground-truth").is_dir():
        print(f"no WCXB data at {data}; set SPYGLASS_WCXB to its folder", file=sys.stderr)
        return 2
    systems = [s.strip() for s in options.systems.split(",") if s.strip()]
    unknown = [s for s in systems if s not in SYSTEMS]
    if unknown:
        print(f"unknown systems {unknown}; choose from {sorted(SYSTEMS)}", file=sys.stderr)
        return 2
    ids = sorted(p.name.split(".")[0] for p in (data / "ground-truth").glob("*.json"))
    if options.half != "all":
        wanted = 1 if options.half == "odd" else 0
        ids = [i for i in ids if int(i) % 2 == wanted]
    ids = pick(ids, options.limit)
    work = [(str(data), file_id, systems) for file_id in ids]
    rows: list[dict[str, Any]] = []
    if options.jobs > 1:
        with ProcessPoolExecutor(options.jobs) as pool:
            for page_rows in pool.map(score_page, work, chunksize=4):
                rows.extend(page_rows)
    else:
        for item in work:
            rows.extend(score_page(item))
    summary = summarise(rows, systems)
    if options.json:
        print(json.dumps(summary, indent=2))
        return 0
    print(f"WCXB dev: {len(ids)} pages, systems measured in the same run")
    print(
        f"{'system':<12} {'group':<14} {'pages':>5} {'F1':>6} {'P':>6} {'R':>6} "
        f"{'with':>6} {'w/out':>6} {'ms':>7} {'len':>5}"
    )
    for system, groups in summary.items():
        order = ["overall", *sorted(g for g in groups if g != "overall")]
        for group in order:
            g = groups[group]
            print(
                f"{system:<12} {group:<14} {g['pages']:>5} {g['f1']:>6.3f} {g['precision']:>6.3f} "
                f"{g['recall']:>6.3f} {g['with_hit']:>6.3f} {g['without_hit']:>6.3f} "
                f"{g['median_ms']:>7.1f} {g['median_length_ratio']:>5.2f}"
            )
    if "ours" in summary and "trafilatura" in summary:
        a, b = summary["ours"]["overall"], summary["trafilatura"]["overall"]
        print(
            f"\nours vs trafilatura: F1 {a['f1'] - b['f1']:+.3f}, "
            f"median time x{a['median_ms'] / b['median_ms']:.2f}"
        )
    if "ours" in summary and "readability" in summary:
        a, b = summary["ours"]["overall"], summary["readability"]["overall"]
        print(
            f"ours vs readability+markdownify: F1 {a['f1'] - b['f1']:+.3f}, "
            f"median time x{a['median_ms'] / b['median_ms']:.2f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
