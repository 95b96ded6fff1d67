"""The two extraction corpora as one list of pages with a common scoring interface: WCXB dev
(``SPYGLASS_WCXB``, word F1) and trafilatura-eval (``SPYGLASS_TRAFILATURA_EVAL``, snippet
counts), both scored on the text the model receives (bench/TRAINING.md).
"""

from __future__ import annotations

import gzip
import json
import os
import random
import re
import statistics
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
# The shared notes sit next to the main checkout (``../shared``), or next to the folder of
# worktrees when the repository is a worktree (``../../shared``).
SHARED = next(
    (p / "shared" / "bench" for p in (ROOT.parent, ROOT.parent.parent) if (p / "shared").is_dir()),
    ROOT.parent / "shared" / "bench",
)

_IMAGE = re.compile(r"!\[([^\]]*)\]\((?:<[^>]*>|[^()\s]*(?:\([^()\s]*\)[^()\s]*)*)[^)]*\)")
_LINK = re.compile(r"\[([^\]]*)\]\((?:<[^>]*>|[^()\s]*(?:\([^()\s]*\)[^()\s]*)*)[^)]*\)")
_AUTOLINK = re.compile(r"<https?://[^>\s]+>")
_BARE_URL = re.compile(r"https?://\S+")
_EMPHASIS = re.compile(r"(\*\*|__|\*|`+|~~)")
_LINE_MARKERS = re.compile(r"(?m)^\s*(?:#{1,6}\s+|>\s?|[-*+]\s+|\d+[.)]\s+)")
_TABLE_RULE = re.compile(r"(?m)^\s*\|?\s*:?-{3,}.*$")
_WORD = re.compile(r"\w+")
#: Seed of the folds' shuffle (and of every model trained on them).
SEED = 20261130
#: Folds of the cross-validation, grouped by site.
FOLDS = 5
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


#: An output longer than this many times its reference counts as too long.
LONGER = 1.5
#: Words of a shingle, as the article-extraction benchmark counts them (four in a row).
SHINGLE = 4


def shingles(text: str) -> Counter[tuple[str, ...]]:
    """Every run of :data:`SHINGLE` words of ``text``, counted; case kept, as the Scrapinghub
    article-extraction benchmark (181 news pages, "shingle F1") compares them."""
    words = _WORD.findall(text)
    if not words:
        return Counter()
    # Fewer words than a shingle are one shorter shingle, as the benchmark counts them.
    return Counter(tuple(words[i : i + SHINGLE]) for i in range(max(1, len(words) - SHINGLE + 1)))


def shingle_counts(predicted: str, reference: str) -> tuple[float, float, float]:
    """True positive, false positive and false negative shingles of one page, as shares of
    their sum, so that a long page weighs no more than a short one (the benchmark's way)."""
    ours, theirs = shingles(predicted), shingles(reference)
    tp = sum((ours & theirs).values())
    fp = sum((ours - theirs).values())
    fn = sum((theirs - ours).values())
    total = tp + fp + fn
    return (tp / total, fp / total, fn / total) if total else (0.0, 0.0, 0.0)


def shingle_figures(counts: list[tuple[float, float, float]]) -> dict[str, float]:
    """The benchmark's precision and recall (means over the pages where each is defined) and
    its F1 of those two means, from each page's :func:`shingle_counts`."""
    precisions = [tp / (tp + fp) for tp, fp, _ in counts if tp + fp]
    recalls = [tp / (tp + fn) for tp, _, fn in counts if tp + fn]
    precision = sum(precisions) / len(precisions) if precisions else 0.0
    recall = sum(recalls) / len(recalls) if recalls else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"shingle_f1": f1, "shingle_precision": precision, "shingle_recall": recall}


def normalised(text: str) -> str:
    return _SPACE.sub(" ", text.lower()).strip()


def found(snippets: list[str], text: str) -> int:
    haystack = normalised(text)
    return sum(normalised(s) in haystack for s in snippets)


@dataclass
class Page:
    corpus: str  # "wcxb" or "trafilatura"
    id: str
    url: str
    type: str
    domain: str
    html: str
    reference: str = ""
    with_: list[str] = field(default_factory=list)
    without: list[str] = field(default_factory=list)

    def score(self, markdown: str) -> dict[str, float]:
        """This page's figures for ``markdown``: word F1 (WCXB) or snippet counts (both)."""
        text = plain(markdown)
        tp = found(self.with_, text)
        fp = found(self.without, text)
        result: dict[str, float] = {
            "tp": tp,
            "fn": len(self.with_) - tp,
            "fp": fp,
            "tn": len(self.without) - fp,
            "length_ratio": len(markdown) / max(len(self.reference), 1),
        }
        if self.corpus == "wcxb":
            result["f1"], result["precision"], result["recall"] = f1(text, self.reference)
            counts = shingle_counts(text, self.reference)
            result["shingle_tp"], result["shingle_fp"], result["shingle_fn"] = counts
        else:
            # A per-page F1 over the snippet counts, the target the chooser learns from.
            denominator = 2 * tp + result["fn"] + fp
            result["f1"] = 2 * tp / denominator if denominator else 1.0
        return result


def wcxb_dir() -> Path:
    return Path(os.environ.get("SPYGLASS_WCXB", SHARED / "wcxb-dev"))


def trafilatura_dir() -> Path:
    return Path(os.environ.get("SPYGLASS_TRAFILATURA_EVAL", SHARED / "trafilatura-eval"))


def page_ids(corpus: str) -> list[str]:
    if corpus == "wcxb":
        return sorted(p.name.split(".")[0] for p in (wcxb_dir() / "ground-truth").glob("*.json"))
    data = json.loads((trafilatura_dir() / "evaldata.json").read_text(encoding="utf-8"))
    return sorted(data)


_EVAL: dict[str, dict[str, object]] = {}
_WCXB_META: dict[str, dict[str, object]] = {}


def load(corpus: str, page_id: str) -> Page:
    if corpus == "wcxb":
        return _load_wcxb(page_id)
    return _load_trafilatura(page_id)


def load_truth(corpus: str, page_id: str) -> Page:
    """The page's references without its HTML (``html`` is empty), for re-scoring."""
    if corpus == "wcxb":
        data = wcxb_dir()
        truth = json.loads((data / "ground-truth" / f"{page_id}.json").read_text("utf-8"))
        gt = truth["ground_truth"]
        return Page(
            corpus="wcxb",
            id=page_id,
            url=truth.get("url") or "",
            type=truth["_internal"]["page_type"]["primary"],
            domain="",
            html="",
            reference=gt.get("main_content") or "",
            with_=list(gt.get("with") or []),
            without=list(gt.get("without") or []),
        )
    if not _EVAL:
        _EVAL.update(json.loads((trafilatura_dir() / "evaldata.json").read_text("utf-8")))
    entry = _EVAL[page_id]
    return Page(
        corpus="trafilatura",
        id=str(entry["file"]),
        url=page_id,
        type="news/blog",
        domain="",
        html="",
        with_=[str(s) for s in entry["with"]],  # type: ignore[attr-defined]
        without=[str(s) for s in entry["without"]],  # type: ignore[attr-defined]
    )


def _load_wcxb(file_id: str) -> Page:
    data = wcxb_dir()
    if not _WCXB_META:
        meta = json.loads((data / "metadata.json").read_text(encoding="utf-8"))
        _WCXB_META.update(meta["files"])
    truth = json.loads((data / "ground-truth" / f"{file_id}.json").read_text(encoding="utf-8"))
    html = gzip.decompress((data / "html" / f"{file_id}.html.gz").read_bytes()).decode(
        "utf-8", errors="replace"
    )
    gt = truth["ground_truth"]
    url = truth.get("url") or "https://example.com/"
    domain = str(_WCXB_META.get(file_id, {}).get("domain") or urlsplit(url).hostname or "")
    return Page(
        corpus="wcxb",
        id=file_id,
        url=url,
        type=truth["_internal"]["page_type"]["primary"],
        domain=domain,
        html=html,
        reference=gt.get("main_content") or "",
        with_=list(gt.get("with") or []),
        without=list(gt.get("without") or []),
    )


def _load_trafilatura(url: str) -> Page:
    from spyglass.extract.decode import decode

    data = trafilatura_dir()
    if not _EVAL:
        _EVAL.update(json.loads((data / "evaldata.json").read_text(encoding="utf-8")))
    entry = _EVAL[url]
    body = gzip.decompress((data / "html" / f"{entry['file']}.gz").read_bytes())
    host = (urlsplit(url).hostname or "").lower().removeprefix("www.")
    return Page(
        corpus="trafilatura",
        id=str(entry["file"]),
        url=url,
        type="news/blog",
        domain=host,
        html=decode(body, None, markup=True),
        with_=[str(s) for s in entry["with"]],  # type: ignore[attr-defined]
        without=[str(s) for s in entry["without"]],  # type: ignore[attr-defined]
    )


def folds(pages: list[dict[str, Any]]) -> list[int]:
    """Fold number per page; all pages of a domain share one fold."""
    domains = sorted({p["domain"] for p in pages})
    random.Random(SEED).shuffle(domains)
    fold_of = {domain: i % FOLDS for i, domain in enumerate(domains)}
    return [fold_of[p["domain"]] for p in pages]


def figures(scored: Iterable[tuple[dict[str, Any], dict[str, float]]]) -> dict[str, Any]:
    """WCXB word F1 overall and per page type, shingle F1, `with`/`without` rates and length
    ratio; trafilatura-eval snippet P/R/F1 (counts summed over pages).

    ``scored`` pairs each page (its ``corpus`` and ``type``) with the score
    (:meth:`Page.score`) of what was chosen for it.
    """
    by_type: dict[str, list[float]] = defaultdict(list)
    ratios: list[float] = []
    with_rates: list[float] = []
    without_rates: list[float] = []
    counts = {"tp": 0.0, "fn": 0.0, "fp": 0.0, "tn": 0.0}
    shingled: dict[str, list[tuple[float, float, float]]] = defaultdict(list)
    for page, score in scored:
        if page["corpus"] != "wcxb":
            for key in counts:
                counts[key] += score[key]
            continue
        by_type["overall"].append(score["f1"])
        by_type[page["type"]].append(score["f1"])
        ratios.append(score["length_ratio"])
        shingles = (score["shingle_tp"], score["shingle_fp"], score["shingle_fn"])
        for group in ("overall", page["type"]):
            shingled[group].append(shingles)
        if score["tp"] + score["fn"]:
            with_rates.append(score["tp"] / (score["tp"] + score["fn"]))
        if score["fp"] + score["tn"]:
            without_rates.append(score["fp"] / (score["fp"] + score["tn"]))
    precision = counts["tp"] / max(counts["tp"] + counts["fp"], 1)
    recall = counts["tp"] / max(counts["tp"] + counts["fn"], 1)
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {
        "wcxb": {group: statistics.fmean(values) for group, values in by_type.items() if values},
        "pages": {group: len(values) for group, values in by_type.items()},
        "length_ratio": statistics.median(ratios),
        "with": statistics.fmean(with_rates),
        "without": statistics.fmean(without_rates),
        "trafilatura_eval": {"precision": precision, "recall": recall, "f1": f1},
        "shingles": {group: shingle_figures(values) for group, values in shingled.items()},
    }
