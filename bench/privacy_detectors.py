"""Precision and recall of the outgoing privacy check (``spyglass.privacy.check``).

    .venv/bin/python bench/privacy_detectors.py [--show N] [--json]

Precision: the share of ordinary queries and URLs the check flags (target ≤ 1 %), built
offline: as URLs every page URL of trafilatura-eval and WCXB dev and every URL in the
search-provider fixtures (``tests/search``); as queries every page title of both sets and
the first three lines of 20-120 characters of each WCXB page's main text; as the private
text of the conversation (for the copied-words detector) the main text of 200 other WCXB
pages. Recall: the share of planted values found per kind (target ≥ 99 %), made with a
fixed seed (valid phone numbers from ``phonenumbers``' examples, Luhn-valid cards, IBANs,
SSNs and NINOs, vendor-shaped tokens, the owner's terms re-cased and accented, runs of 8-20
words of the private text) and planted into corpus queries, or into URLs as a parameter, a
path segment, or base64/hex. Data: ``$SPYGLASS_BENCH_DATA`` or the first of
``../shared/bench`` and ``/work/shared/bench`` that exists.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import random
import re
import string
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote, quote_plus

import phonenumbers

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from spyglass.privacy.check import PrivacyCheck  # noqa: E402
from spyglass.privacy.detectors import IBAN_LENGTHS, luhn_valid  # noqa: E402
from spyglass.settings import PrivacySettings  # noqa: E402

SEED = 20261130
PLANTS_PER_KIND = 600
TERMS = ["Jürgen Okonkwo-Lindqvist", "Brightwater Analytics", "17 Harrow Lane"]


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


# -- planted values ------------------------------------------------------------------------


def plant_email(rng: random.Random) -> str:
    local = rng.choice(["jane.doe", "j.smith", "maria+news", "k_oconnor", "lee123", "a.b.c"])
    domain = rng.choice(["example.com", "mail.example.co.uk", "post.example.de", "uni.example.edu"])
    return f"{local}{rng.randint(0, 99)}@{domain}"


PHONE_REGIONS = ["US", "GB", "DE", "FR", "IN", "BR", "JP", "AU", "ES", "IT", "NL", "CA", "MX"]


def plant_phone(rng: random.Random) -> str:
    while True:
        region = rng.choice(PHONE_REGIONS)
        kind = rng.choice(
            [phonenumbers.PhoneNumberType.MOBILE, phonenumbers.PhoneNumberType.FIXED_LINE]
        )
        example = phonenumbers.example_number_for_type(region, kind)
        if example is None:
            continue
        digits = str(example.national_number)
        tail = "".join(rng.choice(string.digits) for _ in range(3))
        example.national_number = int(digits[:-3] + tail)
        if not phonenumbers.is_valid_number(example):
            continue
        if region == "US" and rng.random() < 0.5:
            return phonenumbers.format_number(example, phonenumbers.PhoneNumberFormat.NATIONAL)
        return phonenumbers.format_number(example, phonenumbers.PhoneNumberFormat.INTERNATIONAL)


CARD_PREFIXES = [("4", 16), ("51", 16), ("55", 16), ("2221", 16), ("34", 15), ("37", 15),
                 ("6011", 16), ("65", 16), ("3528", 16), ("36", 14)]  # fmt: skip


def plant_card(rng: random.Random) -> str:
    prefix, length = rng.choice(CARD_PREFIXES)
    while True:
        body = prefix + "".join(rng.choice(string.digits) for _ in range(length - len(prefix) - 1))
        for check in string.digits:
            if luhn_valid(body + check):
                number = body + check
                break
        if len(set(number)) > 1:
            break
    separator = rng.choice(["", " ", "-"])
    if not separator:
        return number
    groups = [number[i : i + 4] for i in range(0, len(number), 4)]
    return separator.join(groups)


def plant_iban(rng: random.Random) -> str:
    country = rng.choice(["DE", "GB", "FR", "NL", "ES", "IT", "BE", "CH", "AT", "PL", "SE"])
    length = IBAN_LENGTHS[country]
    letters = 4 if country in {"GB", "NL"} else 0
    bban = "".join(rng.choice(string.ascii_uppercase) for _ in range(letters))
    bban += "".join(rng.choice(string.digits) for _ in range(length - 4 - letters))
    numeric = "".join(str(int(ch, 36)) for ch in bban + country + "00")
    check = 98 - int(numeric) % 97
    iban = f"{country}{check:02d}{bban}"
    if rng.random() < 0.5:
        return " ".join(iban[i : i + 4] for i in range(0, len(iban), 4))
    return iban


def plant_government_id(rng: random.Random) -> str:
    if rng.random() < 0.5:
        area = rng.choice([a for a in range(1, 900) if a != 666])
        sep = rng.choice(["-", " "])
        return f"{area:03d}{sep}{rng.randint(1, 99):02d}{sep}{rng.randint(1, 9999):04d}"
    first = rng.choice("ABCEGHJKLMNOPRSTWXYZ")
    second = rng.choice("ABCEGHJKLMNPRSTWXYZ")
    while first + second in {"BG", "GB", "KN", "NK", "NT", "TN", "ZZ"}:
        second = rng.choice("ABCEGHJKLMNPRSTWXYZ")
    digits = "".join(rng.choice(string.digits) for _ in range(6))
    suffix = rng.choice("ABCD")
    if rng.random() < 0.5:
        return f"{first}{second} {digits[:2]} {digits[2:4]} {digits[4:]} {suffix}"
    return f"{first}{second}{digits}{suffix}"


def _chars(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


ALNUM = string.ascii_letters + string.digits


def plant_secret(rng: random.Random) -> str:
    shape = rng.randrange(10)
    if shape == 0:
        return "AKIA" + _chars(rng, string.ascii_uppercase + string.digits, 16)
    if shape == 1:
        return "ghp_" + _chars(rng, ALNUM, 36)
    if shape == 2:
        return "xoxb-" + _chars(rng, string.digits, 12) + "-" + _chars(rng, ALNUM, 24)
    if shape == 3:
        body = _chars(rng, ALNUM, 46) + rng.choice(string.digits) + rng.choice("ABCDEFGH")
        return "sk-proj-" + body
    if shape == 4:
        return "AIza" + _chars(rng, ALNUM + "-_", 35)
    if shape == 5:
        return "sk_live_" + _chars(rng, ALNUM, 24)
    if shape == 6:
        head = base64.urlsafe_b64encode(b'{"alg":"HS256","typ":"JWT"}').decode().rstrip("=")
        claims = json.dumps({"sub": _chars(rng, string.digits, 8), "exp": rng.randint(1, 9**9)})
        body = base64.urlsafe_b64encode(claims.encode()).decode().rstrip("=")
        return f"{head}.{body}.{_chars(rng, ALNUM + '-_', 43)}"
    if shape == 7:
        return "-----BEGIN OPENSSH PRIVATE KEY-----"
    if shape == 8:
        return "github_pat_" + _chars(rng, ALNUM, 22) + "_" + _chars(rng, ALNUM, 59)
    return "glpat-" + _chars(rng, ALNUM + "-_", 20)


def plant_personal_term(rng: random.Random) -> str:
    term = rng.choice(TERMS)
    variants = [term, term.lower(), term.upper(), term.replace("ü", "u"), term.replace(" ", "-")]
    return rng.choice(variants)


def plant_copied_text(rng: random.Random, private: list[str]) -> str:
    """8-20 consecutive words (runs of letters or digits; punctuation does not count)."""
    while True:
        text = rng.choice(private)
        words = list(re.finditer(r"[^\W_]+", text))
        if len(words) >= 30:
            size = rng.randint(8, 20)
            start = rng.randrange(len(words) - size)
            return text[words[start].start() : words[start + size - 1].end()]


PLANTERS: dict[str, Callable[[random.Random], str]] = {
    "email": plant_email,
    "phone": plant_phone,
    "card": plant_card,
    "iban": plant_iban,
    "government_id": plant_government_id,
    "secret": plant_secret,
    "personal_term": plant_personal_term,
}


def into_url(rng: random.Random, url: str, value: str, kind: str) -> str:
    base = url.split("#")[0].split("?")[0].rstrip("/")
    how = rng.randrange(4 if kind == "copied_text" else 3)
    if how == 0:
        return f"{base}?q={quote_plus(value)}"
    if how == 1:
        return f"{base}/{quote(value, safe='')}"
    if how == 2:
        return f"{base}?ref=1&d={quote(value, safe='')}"
    encoded = value.encode()
    blob = base64.urlsafe_b64encode(encoded).decode() if rng.random() < 0.5 else encoded.hex()
    return f"{base}?d={blob}"


def into_query(rng: random.Random, query: str, value: str) -> str:
    """``value`` between two words of ``query``, never next to a word made of digits: a number
    run into another number ("call +31 10 123 4998 5 times") is ambiguous even to a person."""
    words = query.split()[:8]
    places = [
        at
        for at in range(len(words) + 1)
        if not (at > 0 and words[at - 1][-1:].isdigit())
        and not (at < len(words) and words[at][:1].isdigit())
    ]
    at = rng.choice(places or [len(words)])
    return " ".join([*words[:at], value, *(words[at:] if places else [])])


# -- measuring -----------------------------------------------------------------------------


def measure(show: int) -> dict[str, Any]:
    folder = data_folder()
    queries, urls, private = corpus(folder)
    check = PrivacyCheck(PrivacySettings(personal_terms=TERMS), private)
    started = time.perf_counter()
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
    per_call_ms = (time.perf_counter() - started) * 1000 / checked

    rng = random.Random(SEED)
    recall: dict[str, Counter[str]] = defaultdict(Counter)
    missed: dict[str, list[str]] = defaultdict(list)
    kinds = [*PLANTERS, "copied_text"]
    for kind in kinds:
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
    print(f"{report['ms_per_check']:.3f} ms per check")


if __name__ == "__main__":
    main()
