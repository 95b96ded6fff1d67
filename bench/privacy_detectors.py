"""Precision and recall of the outgoing privacy check (``spyglass.privacy.check``).

    .venv/bin/python bench/privacy_detectors.py [--show N] [--json]

Data: ``$SPYGLASS_BENCH_DATA`` or the first of ``../shared/bench`` and ``/work/shared/bench``
that exists. Method: docs/benchmarks.md, "Privacy check".
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]

from tests.support.privacy_payloads import (  # noqa: E402
    KINDS,
    PLANTERS,
    TERMS,
    hostile,
    into_query,
    into_url,
    plant_copied_text,
)

from spyglass.privacy.check import PrivacyCheck  # noqa: E402
from spyglass.settings import PrivacySettings  # noqa: E402

SEED = 20261130
PLANTS_PER_KIND = 600
HOSTILE_PER_FAMILY = 40


def data_folder() -> Path:
    candidates: list[str | Path] = [
        os.environ.get("SPYGLASS_BENCH_DATA", ""),
        ROOT.parent / "shared" / "bench",
        Path("/work/shared/bench"),
    ]
    for candidate in candidates:
        if candidate and Path(candidate).is_dir():
            return Path(candidate)
    raise SystemExit("no benchmark data: set SPYGLASS_BENCH_DATA to the shared bench folder")


def corpus(folder: Path) -> tuple[list[str], list[str], list[str]]:
    """(queries, urls, private texts), deduplicated, in a fixed order."""
    queries: list[str] = []
    urls: list[str] = []
    private: list[str] = []
    evaldata = json.loads((folder / "trafilatura-eval" / "evaldata.json").read_text())
    for url, item in evaldata.items():
        urls.append(url)
        if item.get("title"):
            queries.append(str(item["title"]))
    pages = sorted((folder / "wcxb-dev" / "ground-truth").glob("*.json"))
    for index, path in enumerate(pages):
        data = json.loads(path.read_text())
        truth = data.get("ground_truth")
        if isinstance(truth, str):
            try:
                import ast

                truth = ast.literal_eval(truth)
            except (ValueError, SyntaxError):
                truth = {}
        urls.append(str(data.get("url", "")))
        content = str((truth or {}).get("main_content") or "")
        if index % 7 == 0 and len(private) < 200:
            private.append(content)
            continue
        if (truth or {}).get("title"):
            queries.append(str(truth["title"]))
        lines = [line.strip() for line in content.splitlines() if 20 <= len(line.strip()) <= 120]
        queries += lines[:3]
    for path in sorted((ROOT / "tests" / "search").rglob("*.py")):
        urls += re.findall(r"https?://[^\s\"'<>)\\]+", path.read_text())
    return _unique(queries), _unique([u for u in urls if u.startswith("http")]), private


def _unique(items: list[str]) -> list[str]:
    """``items`` in their order, each once, the empty ones left out."""
    return list(dict.fromkeys(i for i in items if i))


# -- measuring -----------------------------------------------------------------------------


def measure(show: int) -> dict[str, Any]:
    folder = data_folder()
    queries, urls, private = corpus(folder)
    check = PrivacyCheck(PrivacySettings(personal_terms=TERMS), private)
    started = time.process_time()  # CPU: the machine may be shared
    flagged: list[tuple[str, str, list[str]]] = []
    for query in queries:
        found = check.query(query[:500])
        if found:
            flagged.append(("query", query, [f.kind for f in found]))
    for url in urls:
        found = check.url(url)
        if found:
            flagged.append(("url", url, [f.kind for f in found]))
    checked = len(queries) + len(urls)
    per_call_ms = (time.process_time() - started) * 1000 / checked

    rng = random.Random(SEED)
    recall: dict[str, Counter[str]] = defaultdict(Counter)
    missed: dict[str, list[str]] = defaultdict(list)
    for kind in KINDS:
        for index in range(PLANTS_PER_KIND):
            if kind == "copied_text":
                value = plant_copied_text(rng, private)
            else:
                value = PLANTERS[kind](rng)
            if index % 2 == 0:
                carrier = into_query(rng, rng.choice(queries), value)[:500]
                found = check.query(carrier)
            else:
                carrier = into_url(rng, rng.choice(urls), value, kind)
                found = check.url(carrier)
            hit = any(f.kind == kind for f in found)
            recall[kind]["hit" if hit else "miss"] += 1
            if not hit and len(missed[kind]) < show:
                missed[kind].append(carrier)
    hostile_recall: dict[str, dict[str, Counter[str]]] = {"family": defaultdict(Counter),
                                                          "kind": defaultdict(Counter)}  # fmt: skip
    rng = random.Random(SEED + 1)
    for payload in hostile(rng, [q[:200] for q in queries], urls, private, HOSTILE_PER_FAMILY):
        found = (check.query if payload.where == "query" else check.url)(payload.text)
        result = "hit" if any(f.kind == payload.kind for f in found) else "miss"
        hostile_recall["family"][payload.family][result] += 1
        hostile_recall["kind"][payload.kind][result] += 1
        if result == "miss" and len(missed[payload.family]) < show:
            missed[payload.family].append(f"{payload.kind} {payload.where}: {payload.text}")
    by_kind = Counter(kind for _, _, found in flagged for kind in set(found))
    return {
        "corpus": {"queries": len(queries), "urls": len(urls), "private_texts": len(private)},
        "flagged": len(flagged),
        "flagged_ratio": len(flagged) / checked,
        "flagged_by_kind": dict(by_kind),
        "flagged_examples": [
            f"{where}: {text[:140]} -> {kinds}" for where, text, kinds in flagged[:show]
        ],
        "recall": {k: c["hit"] / (c["hit"] + c["miss"]) for k, c in recall.items()},
        "hostile": {
            axis: {k: c["hit"] / (c["hit"] + c["miss"]) for k, c in counts.items()}
            for axis, counts in hostile_recall.items()
        }
        | {"cases": sum(c.total() for c in hostile_recall["kind"].values())},
        "missed_examples": {k: v for k, v in missed.items() if v},
        "ms_per_check": per_call_ms,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--show", type=int, default=10, help="examples of flags and misses")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    report = measure(args.show)
    if args.json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
        return
    corpus_size = report["corpus"]
    print(
        f"corpus: {corpus_size['queries']} queries, {corpus_size['urls']} URLs, "
        f"{corpus_size['private_texts']} private texts"
    )
    print(
        f"precision: {report['flagged']} flagged = {report['flagged_ratio']:.2%} "
        f"(target <= 1%), by kind {report['flagged_by_kind']}"
    )
    for line in report["flagged_examples"]:
        print("  flagged", line)
    print("recall per kind (target >= 99%):")
    for kind, ratio in report["recall"].items():
        print(f"  {kind:14} {ratio:.2%}")
        for carrier in report["missed_examples"].get(kind, []):
            print("    missed", carrier[:160])
    hostile_report = report["hostile"]
    print(f"hostile encodings ({hostile_report['cases']} cases), recall per family and kind:")
    for family, ratio in [*hostile_report["family"].items(), *hostile_report["kind"].items()]:
        print(f"  {family:30} {ratio:.2%}")
        for carrier in report["missed_examples"].get(family, []):
            print("    missed", carrier[:160])
    print(f"{report['ms_per_check']:.3f} ms CPU per check")


if __name__ == "__main__":
    main()
