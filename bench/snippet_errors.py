"""What the shipped extraction path gets wrong on trafilatura-eval, every decision held out.

    PYTHONPATH=src:. .venv/bin/python bench/snippet_errors.py [--jobs 2] [--rebuild]
        [--show 40] [--out errors.jsonl]

Every page is read with the models of the folds its site is not in, as
``bench/train_extraction.py`` measures (same five site-grouped folds, same caches): the
chooser trained on the other folds picks a reading, that fold's block model filters it at
the shipped keep threshold of what the page declares and that reading
(``models/keep.json``). Then, per
page, the `without` snippets the output still has (false positives) and the `with` snippets
it lacks (false negatives), each missed one told by where it is: in the chosen reading but
dropped by the block filter, in another reading only, or in no reading. Prints the counts
and the first ``--show`` of each; ``--out`` writes one JSON line per error. The error
analysis of rounds ten and eleven (docs/benchmarks.md) started from this list.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.extraction_data import Page, load_truth, normalised, plain  # noqa: E402

#: Where a missed `with` snippet is.
DROPPED = "dropped by the block filter"
OTHER_READING = "in another reading"
NO_READING = "in no reading"


@dataclass(frozen=True)
class SnippetError:
    page: str
    reading: str
    kind: str  # "kept boilerplate" or "missed content"
    snippet: str
    where: str = ""


def page_errors(page: Page, output: str, texts: dict[str, str], chosen: str) -> list[SnippetError]:
    """The snippet errors of ``output`` (the page's extraction) against ``page``'s snippets,
    scored as the benchmark scores them; ``texts`` are every reading before filtering and
    ``chosen`` the one the output was filtered from."""
    found = normalised(plain(output))
    readings = {kind: normalised(plain(text)) for kind, text in texts.items()}
    errors = [
        SnippetError(page.id, chosen, "kept boilerplate", snippet)
        for snippet in page.without
        if normalised(snippet) in found
    ]
    for snippet in page.with_:
        wanted = normalised(snippet)
        if wanted in found:
            continue
        if wanted in readings.get(chosen, ""):
            where = DROPPED
        elif any(wanted in text for text in readings.values()):
            where = OTHER_READING
        else:
            where = NO_READING
        errors.append(SnippetError(page.id, chosen, "missed content", snippet, where))
    return errors


def held_out_outputs(jobs: int, rebuild: bool) -> list[tuple[dict[str, Any], str, str]]:
    """(page, chosen reading, output) for every trafilatura-eval page, held out."""
    from bench import block_training, extraction_data
    from bench import train_extraction as training
    from spyglass.extract.readings import KINDS
    from spyglass.extract.thresholds import keep_threshold

    pages = training.collect(jobs, rebuild)
    truths = block_training.truths(pages)
    per_page = block_training.block_data(pages, truths, rebuild)
    fold_of = extraction_data.folds(pages)
    _, models = block_training.out_of_fold(
        per_page, fold_of, block_training.block_names(pages), pages
    )
    result = []
    for fold in range(extraction_data.FOLDS):
        chooser = training.fit([pages[i] for i, f in enumerate(fold_of) if f != fold])
        for index, page in enumerate(pages):
            if fold_of[index] != fold or page["corpus"] != "trafilatura":
                continue
            chosen = training.pick(chooser, page)
            declared: dict[str, float] = {}
            if page["rows"] is not None:
                row = page["rows"][KINDS.index(chosen)]
                declared = dict(zip(page["names"], row, strict=True))
            chances = block_training.one_pass(models[fold])
            threshold = keep_threshold(declared, chosen)
            output = block_training.filtered(chances, page, chosen, [threshold])[0]
            result.append((page, chosen, output))
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--jobs", type=int, default=2, help="worker processes for reading")
    parser.add_argument("--rebuild", action="store_true", help="re-read pages, ignore caches")
    parser.add_argument("--show", type=int, default=40, help="errors of each kind to print")
    parser.add_argument("--out", type=Path, help="write every error as a JSON line here")
    options = parser.parse_args()

    errors: list[SnippetError] = []
    for page, chosen, output in held_out_outputs(options.jobs, options.rebuild):
        truth = load_truth("trafilatura", page["id"])
        errors += page_errors(truth, output, page["texts"], chosen)
    kept = [e for e in errors if e.kind == "kept boilerplate"]
    missed = [e for e in errors if e.kind == "missed content"]
    print(f"kept boilerplate: {len(kept)} on {len({e.page for e in kept})} pages, by reading:")
    print("  " + ", ".join(f"{k} {n}" for k, n in Counter(e.reading for e in kept).items()))
    print(f"missed content: {len(missed)} on {len({e.page for e in missed})} pages, by where:")
    print("  " + ", ".join(f"{k} {n}" for k, n in Counter(e.where for e in missed).items()))
    for title, shown in (("kept boilerplate", kept), ("missed content", missed)):
        print(f"\n{title} (first {options.show}):")
        for error in shown[: options.show]:
            where = f" [{error.where}]" if error.where else ""
            print(f"  {error.reading:<8} {error.page[:60]:<60} | {error.snippet[:80]}{where}")
    if options.out:
        with options.out.open("w", encoding="utf-8") as handle:
            for error in errors:
                handle.write(json.dumps(asdict(error), ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
