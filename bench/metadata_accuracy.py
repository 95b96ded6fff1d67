"""How often the metadata header is right: title, author and published date against WCXB's
annotations, with trafilatura's metadata reader measured on the same pages.

    .venv/bin/python bench/metadata_accuracy.py [--limit N] [--jobs 2] [--misses FIELD] [--json]

``--misses FIELD`` lists the pages where ours is not right. Method: docs/benchmarks.md,
"The metadata header".
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import unicodedata
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.extraction_data import f1, load, page_ids, wcxb_dir  # noqa: E402
from bench.fetch_extraction import pick  # noqa: E402

FIELDS = ("title", "author", "published")
SYSTEMS = ("ours", "trafilatura")
_WORD = re.compile(r"\w+")
#: Words around authors' names that are not names.
_NOT_NAMES = frozenset(["by", "and", "written", "posted", "author", "authors"])
#: A title this close to the annotation's (word F1) counts as right.
_CLOSE = 0.8


def _normalised(text: str) -> str:
    return unicodedata.normalize("NFKC", text)


def words(text: str) -> list[str]:
    return _WORD.findall(_normalised(text).lower())


def title_match(found: str, truth: str) -> tuple[bool, bool]:
    """(exact, close): the same words, or a word F1 of at least :data:`_CLOSE` (the body's
    measure, :func:`bench.extraction_data.f1`)."""
    if words(found) == words(truth):
        return True, True
    return False, f1(_normalised(found), _normalised(truth))[0] >= _CLOSE


def author_match(found: str, truth: str) -> bool:
    """The same name words, whatever their case, order and separators."""
    return {w for w in words(found) if w not in _NOT_NAMES} == {
        w for w in words(truth) if w not in _NOT_NAMES
    }


def date_match(found: str, truth: str) -> bool:
    return found[:10] == truth[:10]


def read(page_id: str) -> dict[str, Any]:
    """Both systems' title, author and date of one page, and the annotation's."""
    import trafilatura

    from spyglass.extract.metadata import page_metadata
    from spyglass.extract.tree import parse

    truth = json.loads((wcxb_dir() / "ground-truth" / f"{page_id}.json").read_text("utf-8"))
    gt = truth["ground_truth"]
    page = load("wcxb", page_id)
    url, html = page.url, page.html
    found: dict[str, dict[str, str | None]] = {}
    tree = parse(html)
    ours = page_metadata(tree, url) if tree is not None else None
    found["ours"] = {
        "title": ours.title if ours else None,
        "author": ours.author if ours else None,
        "published": ours.published if ours else None,
    }
    try:
        document = trafilatura.extract_metadata(html, default_url=url)
    except Exception:  # a peer's failure on a page is its "none"
        document = None
    found["trafilatura"] = {
        "title": getattr(document, "title", None),
        "author": getattr(document, "author", None),
        "published": getattr(document, "date", None),
    }
    return {
        "id": page_id,
        "type": truth["_internal"]["page_type"]["primary"],
        "truth": {
            "title": gt.get("title") or None,
            "author": gt.get("author") or None,
            "published": gt.get("publish_date") or None,
        },
        "found": found,
    }


def judge(field: str, found: str | None, truth: str | None) -> str:
    """``right``, ``close`` (titles), ``wrong``, ``none`` or ``unannotated``/``""``."""
    if not truth:
        return "unannotated" if found else ""
    if not found:
        return "none"
    if field == "title":
        exact, close = title_match(found, truth)
        return "right" if exact else "close" if close else "wrong"
    matched = author_match(found, truth) if field == "author" else date_match(found, truth)
    return "right" if matched else "wrong"


def summarise(pages: list[dict[str, Any]]) -> dict[str, dict[str, dict[str, int]]]:
    """Counts of each verdict, by system and field."""
    counts: dict[str, dict[str, dict[str, int]]] = {}
    for system in SYSTEMS:
        counts[system] = {}
        for field in FIELDS:
            verdicts = Counter(
                judge(field, p["found"][system][field], p["truth"][field]) for p in pages
            )
            del verdicts[""]  # neither annotated nor given: nothing to count
            verdicts["annotated"] = sum(1 for p in pages if p["truth"][field])
            counts[system][field] = dict(verdicts)
    return counts


def table(counts: dict[str, dict[str, dict[str, int]]]) -> list[str]:
    lines = [
        "| field (annotated pages) | system | right | wrong | none | unannotated, given |",
        "|---|---|---|---|---|---|",
    ]
    for field in FIELDS:
        for system in SYSTEMS:
            c = counts[system][field]
            total = c["annotated"] or 1
            right = c.get("right", 0)
            close = c.get("close", 0)
            shown = f"{right / total:.1%}"
            if field == "title":
                shown += f" ({(right + close) / total:.1%} close)"
            lines.append(
                f"| {field} ({c['annotated']}) | {system} | {shown} | "
                f"{c.get('wrong', 0) / total:.1%} | {c.get('none', 0) / total:.1%} | "
                f"{c.get('unannotated', 0)} |"
            )
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--limit", type=int, default=0, help="evenly spread pages (0: all)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--misses", choices=FIELDS, help="list ours' misses on this field")
    parser.add_argument("--json", action="store_true", help="print the counts as JSON")
    options = parser.parse_args()
    ids = page_ids("wcxb")
    if options.limit:
        ids = pick(ids, options.limit)
    with ProcessPoolExecutor(options.jobs) as pool:
        pages = list(pool.map(read, ids, chunksize=8))
    counts = summarise(pages)
    if options.json:
        print(json.dumps(counts, indent=2))
    else:
        print(f"WCXB dev, {len(pages)} pages")
        print("\n".join(table(counts)))
    if options.misses:
        field = options.misses
        for page in pages:
            verdict = judge(field, page["found"]["ours"][field], page["truth"][field])
            if verdict in ("wrong", "none", "close"):
                print(
                    f"{page['id']} {page['type']:<13} {verdict:<5} truth={page['truth'][field]!r} "
                    f"ours={page['found']['ours'][field]!r} "
                    f"trafilatura={page['found']['trafilatura'][field]!r}"
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
