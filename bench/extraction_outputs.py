"""Dump what extraction returns on a fixed sample of pages, to check a change leaves it alone.

    .venv/bin/python bench/extraction_outputs.py OUT.jsonl [--wcxb N] [--trafilatura N]
        [--compare OTHER.jsonl]

Writes one JSON line per page (corpus, page id, title, Markdown, metadata header) for the
same evenly spread pages ``fetch_extraction.py --limit N`` measures. With ``--compare``,
reports every page whose output differs from ``OTHER.jsonl`` and exits 1 if any does: a
speed-up of extraction must leave every output byte-identical.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.extraction_data import load, page_ids  # noqa: E402
from bench.fetch_extraction import pick  # noqa: E402


def outputs(corpus: str, limit: int) -> list[dict[str, str | None]]:
    """extract_html's title, Markdown and full text for each sampled page of ``corpus``."""
    from spyglass.extract.html import extract_html

    lines = []
    for page_id in pick(page_ids(corpus), limit):
        page = load(corpus, page_id)
        extracted = extract_html(page.html, page.url)
        lines.append(
            {
                "corpus": corpus,
                "id": page_id,
                "title": extracted.title,
                "markdown": extracted.markdown,
                "text": extracted.text,
            }
        )
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--wcxb", type=int, default=300, help="pages of WCXB dev")
    parser.add_argument("--trafilatura", type=int, default=200, help="pages of trafilatura-eval")
    parser.add_argument("--compare", type=Path, help="an earlier dump to compare against")
    options = parser.parse_args()
    lines = outputs("wcxb", options.wcxb) + outputs("trafilatura", options.trafilatura)
    with options.out.open("w", encoding="utf-8") as out:
        for line in lines:
            out.write(json.dumps(line, ensure_ascii=False) + "\n")
    print(f"{len(lines)} pages written to {options.out}")
    if options.compare is None:
        return 0
    earlier = {
        (entry["corpus"], entry["id"]): entry
        for entry in map(json.loads, options.compare.read_text("utf-8").splitlines())
    }
    differ = [
        f"{line['corpus']}/{line['id']}"
        for line in lines
        if earlier.get((str(line["corpus"]), str(line["id"]))) != line
    ]
    for name in differ:
        print(f"differs: {name}")
    print(f"{len(differ)} of {len(lines)} pages differ from {options.compare}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
