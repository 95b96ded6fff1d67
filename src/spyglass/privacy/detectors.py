"""Detectors of personal data and secrets in one piece of text.

Each detector takes a string and yields :class:`Finding` spans of it. They favour precision:
a false alarm on every fifth search teaches the owner to stop reading the card, so each
shape is confirmed by a checksum (cards, IBANs), a validity rule (SSN, NINO), a parser
(phone numbers, with Google's ``phonenumbers``) or a fixed vendor prefix (tokens).
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import phonenumbers


@dataclass(frozen=True)
class Finding:
    """One span of a text that looks private. ``kind`` is a fixed identifier, never content."""

    kind: str
    start: int
    end: int
    #: What it is, for the person: "an email address", "a GitHub token".
    what: str


Detector = Callable[[str], Iterator[Finding]]

# -- email --------------------------------------------------------------------------------

_EMAIL = re.compile(
    r"(?<![\w.%+-])[A-Za-z0-9](?:[A-Za-z0-9._%+-]{0,63})@"
    r"(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,24}(?![\w-])"
)


def emails(text: str) -> Iterator[Finding]:
    for match in _EMAIL.finditer(text):
        yield Finding("email", match.start(), match.end(), "an email address")


# -- phone numbers ------------------------------------------------------------------------

#: Something a person writes around a phone number's digits; a bare run of digits in a URL is
#: far more often an article id or a timestamp than a phone number.
_PHONE_MARKS = re.compile(r"[+()\s\-]|\..*\.")


def phone_numbers(region: str = "US") -> Detector:
    """Phone numbers valid for their region, parsed by ``phonenumbers``.

    ``region`` reads numbers written without ``+country``. A run of bare digits counts only
    when it starts with ``+`` or is written with the usual separators.
    """

    def detect(text: str) -> Iterator[Finding]:
        if sum(ch.isdigit() for ch in text) < 7:
            return
        matcher = phonenumbers.PhoneNumberMatcher(
            text, region, leniency=phonenumbers.Leniency.VALID, max_tries=200
        )
        for match in matcher:
            raw = match.raw_string
            if not _PHONE_MARKS.search(raw.strip()):
                continue
            yield Finding("phone", match.start, match.end, "a phone number")

    return detect


# -- payment cards ------------------------------------------------------------------------

#: Runs of digit groups joined by single separators — a space or dash as people write them,
#: or the dot, underscore, slash or plus that keep a number together in an address
#: (``4111.1111.…``, ``/4111/1111/…``); a card number is looked for in every sub-run, so a
#: year before it or a count after it does not hide it.
_DIGIT_RUN = re.compile(r"(?<![^\W_])[0-9]+(?:[ ._/+-][0-9]+)*")
_GROUP = re.compile(r"\d+")
#: Issuer prefixes of the card networks (Visa, Mastercard, Amex, Discover, JCB, Diners,
#: UnionPay, Maestro): a Luhn-valid number outside them is far more likely an id.
_CARD_PREFIX = re.compile(
    r"^(?:4\d{12}(?:\d{3}){0,2}|5[1-5]\d{14}|2(?:2[2-9][1-9]|[3-6]\d\d|7[01]\d|720)\d{12}"
    r"|3[47]\d{13}|6(?:011|5\d\d|4[4-9]\d)\d{12,15}|35(?:2[89]|[3-8]\d)\d{12,15}"
    r"|3(?:0[0-5]|[68]\d)\d{11,16}|62\d{14,17}|(?:5018|5020|5038|6304|6759|676[1-3])\d{8,15})$"
)


#: The most digits a payment card number has.
_CARD_DIGITS = 19


def luhn_valid(digits: str) -> bool:
    total = 0
    for index, char in enumerate(reversed(digits)):
        value = int(char)
        if index % 2 == 1:
            value *= 2
            if value > 9:
                value -= 9
        total += value
    return total % 10 == 0


def payment_cards(text: str) -> Iterator[Finding]:
    for run in _DIGIT_RUN.finditer(text):
        groups = [
            (m.start() + run.start(), m.end() + run.start()) for m in _GROUP.finditer(run.group())
        ]
        first = 0
        while first < len(groups):
            found = _card_in(text, groups, first)
            if found is None:
                first += 1
                continue
            last = found
            start, end = groups[first][0], groups[last][1]
            # A number after a decimal point ("0.4111…") or before one is a measurement.
            decimal = first == last and re.fullmatch(r"[0-9][.,]", text[start - 2 : start])
            if not decimal and not re.match(r"[.,]\d|[^\W_]", text[end : end + 2]):
                yield Finding("card", start, end, "a payment card number")
            first = last + 1


def _card_in(text: str, groups: list[tuple[int, int]], first: int) -> int | None:
    """The last group of the longest card number starting at group ``first``, if any."""
    # A card number has at most 19 digits, so only the groups that many digits reach are
    # tried: trying every group to the end of the run made a URL of a thousand numbers
    # joined by spaces take seconds to check, cubic in its length.
    reach: list[int] = []
    digits_so_far = 0
    for last in range(first, len(groups)):
        digits_so_far += groups[last][1] - groups[last][0]
        if digits_so_far > _CARD_DIGITS:
            break
        reach.append(last)
    for last in reversed(reach):
        raw = text[groups[first][0] : groups[last][1]]
        digits = re.sub(r"[^0-9]", "", raw)
        if not 13 <= len(digits) <= _CARD_DIGITS or len(set(re.sub(r"\d", "", raw))) > 1:
            continue
        if _CARD_PREFIX.match(digits) and luhn_valid(digits) and len(set(digits)) > 1:
            return last
    return None


# -- IBAN ---------------------------------------------------------------------------------

#: Length of the IBAN of each country in the SWIFT IBAN registry.
IBAN_LENGTHS: dict[str, int] = {
    "AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BG": 22, "BH": 22,
    "BI": 27, "BR": 29, "BY": 28, "CH": 21, "CR": 22, "CY": 28, "CZ": 24, "DE": 22, "DJ": 27,
    "DK": 18, "DO": 28, "EE": 20, "EG": 29, "ES": 24, "FI": 18, "FK": 18, "FO": 18, "FR": 27,
    "GB": 22, "GE": 22, "GI": 23, "GL": 18, "GR": 27, "GT": 28, "HR": 21, "HU": 28, "IE": 22,
    "IL": 23, "IQ": 23, "IS": 26, "IT": 27, "JO": 30, "KW": 30, "KZ": 20, "LB": 28, "LC": 32,
    "LI": 21, "LT": 20, "LU": 20, "LV": 21, "LY": 25, "MC": 27, "MD": 24, "ME": 22, "MK": 19,
    "MN": 20, "MR": 27, "MT": 31, "MU": 30, "NI": 28, "NL": 18, "NO": 15, "OM": 23, "PK": 24,
    "PL": 28, "PS": 29, "PT": 25, "QA": 29, "RO": 24, "RS": 22, "RU": 33, "SA": 24, "SC": 31,
    "SD": 18, "SE": 24, "SI": 19, "SK": 24, "SM": 27, "SO": 23, "ST": 25, "SV": 28, "TL": 23,
    "TN": 24, "TR": 26, "UA": 29, "VA": 22, "VG": 24, "XK": 20, "YE": 30,
}  # fmt: skip

_IBAN = re.compile(
    r"(?<![A-Za-z0-9])([A-Z]{2}\d{2}(?:[ ]?[A-Z0-9]){11,30})(?![A-Za-z0-9])", re.IGNORECASE
)


def iban_valid(compact: str) -> bool:
    if IBAN_LENGTHS.get(compact[:2]) != len(compact):
        return False
    rearranged = compact[4:] + compact[:4]
    number = "".join(str(int(ch, 36)) for ch in rearranged)
    return int(number) % 97 == 1


def ibans(text: str) -> Iterator[Finding]:
    for match in _IBAN.finditer(text):
        raw = match.group(1)
        compact = raw.replace(" ", "").upper()
        # With spaces, IBANs are written in groups of four; trim a trailing word that the
        # pattern swallowed ("DE89 3704 0044 0532 0130 00 please").
        for end in range(len(compact), 14, -1):
            if iban_valid(compact[:end]):
                stop = match.start(1) + _raw_length(raw, end)
                yield Finding("iban", match.start(1), stop, "a bank account number (IBAN)")
                break


def _raw_length(raw: str, compact_chars: int) -> int:
    seen = 0
    for index, char in enumerate(raw):
        if char != " ":
            seen += 1
            if seen == compact_chars:
                return index + 1
    return len(raw)


# -- government identifiers ---------------------------------------------------------------

_SSN = re.compile(r"(?<![\d-])(\d{3})([- ])(\d{2})\2(\d{4})(?![\d-])")
_NINO = re.compile(
    r"(?<![A-Za-z0-9])([A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z]) ?(\d{2}) ?(\d{2}) ?(\d{2}) ?([A-D])"
    r"(?![A-Za-z0-9])"
)
_NINO_NEVER = {"BG", "GB", "KN", "NK", "NT", "TN", "ZZ"}


def government_ids(text: str) -> Iterator[Finding]:
    for match in _SSN.finditer(text):
        area, group, serial = match.group(1), match.group(3), match.group(4)
        if area in {"000", "666"} or area.startswith("9") or group == "00" or serial == "0000":
            continue
        yield Finding("government_id", match.start(), match.end(), "a US Social Security number")
    for match in _NINO.finditer(text):
        if match.group(1) in _NINO_NEVER:
            continue
        yield Finding("government_id", match.start(), match.end(), "a UK National Insurance number")


# -- secrets ------------------------------------------------------------------------------

#: Token shapes with a fixed, published prefix: a match is a credential, not a coincidence.
SECRET_PATTERNS: Sequence[tuple[str, re.Pattern[str]]] = (
    (
        "an AWS access key",
        re.compile(r"(?<![A-Z0-9])(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Z0-9])"),
    ),
    (
        "a GitHub token",
        re.compile(r"(?<![\w])(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_\w{50,255})"),
    ),
    ("a GitLab token", re.compile(r"(?<![\w-])glpat-[A-Za-z0-9_-]{20,}")),
    ("a Slack token", re.compile(r"(?<![\w-])xox[abposr]-[A-Za-z0-9-]{10,}")),
    (
        "a Slack webhook",
        re.compile(r"hooks\.slack\.com/services/T[A-Z0-9]+/B[A-Z0-9]+/[A-Za-z0-9]{16,}"),
    ),
    ("an Anthropic key", re.compile(r"(?<![\w-])sk-ant-[A-Za-z0-9_-]{20,}")),
    (
        "an OpenAI key",
        re.compile(
            r"(?<![\w-])sk-(?:proj-|svcacct-|admin-)?(?=[A-Za-z0-9_-]*\d)(?=[A-Za-z0-9_-]*[A-Z])[A-Za-z0-9_-]{32,}"
        ),
    ),
    ("a Google API key", re.compile(r"(?<![\w-])AIza[0-9A-Za-z_-]{35}(?![\w-])")),
    ("a Stripe key", re.compile(r"(?<![\w-])(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{24,}")),
    ("a Twilio key", re.compile(r"(?<![\w])SK[0-9a-f]{32}(?![\w])")),
    ("a SendGrid key", re.compile(r"(?<![\w-])SG\.[\w-]{22}\.[\w-]{43}")),
    ("a Hugging Face token", re.compile(r"(?<![\w-])hf_[A-Za-z]{34,}")),
    (
        "a JSON Web Token",
        re.compile(r"(?<![\w-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
    ),
    ("a private key", re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----")),
)

#: Query-string parameters whose value is a credential by name.
_SECRET_PARAMETER = re.compile(
    r"(?:^|[?&;])(?:password|passwd|pwd|pass|api[_-]?key|access[_-]?token|auth[_-]?token|"
    r"client[_-]?secret|secret[_-]?key|private[_-]?token)=([^&;#\s]{4,})",
    re.IGNORECASE,
)
#: ``scheme://user:password@host``: a password written into the address itself.
_URL_PASSWORD = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://[^/?#@:\s]*:([^/?#@\s]+)@")

_TOKEN = re.compile(r"[A-Za-z0-9+/_-]{32,}={0,2}")


def secrets(text: str) -> Iterator[Finding]:
    for what, pattern in SECRET_PATTERNS:
        for match in pattern.finditer(text):
            yield Finding("secret", match.start(), match.end(), what)


def url_secrets(url: str) -> Iterator[Finding]:
    """Passwords in the address and credential-named query parameters."""
    match = _URL_PASSWORD.match(url)
    if match:
        yield Finding("secret", match.start(1), match.end(1), "a password in the address")
    for match in _SECRET_PARAMETER.finditer(url):
        yield Finding("secret", match.start(1), match.end(1), "a password or key")


def entropy(text: str) -> float:
    """Shannon entropy in bits per character."""
    counts = Counter(text)
    size = len(text)
    return -sum(n / size * math.log2(n / size) for n in counts.values())


def random_tokens(text: str) -> Iterator[Finding]:
    """Long strings that look machine-made: mixed case, digits and high entropy.

    Used on queries and query-string values only: paths carry long random ids (documents,
    commits, content hashes) far more often than they carry secrets.
    """
    for match in _TOKEN.finditer(text):
        token = match.group().rstrip("=")
        if len(token) < 32 or "--" in token:
            continue
        classes = sum(bool(re.search(pattern, token)) for pattern in (r"[a-z]", r"[A-Z]", r"\d"))
        digits = sum(ch.isdigit() for ch in token)
        if classes < 3 or digits < 3 or entropy(token) < 4.5:
            continue
        yield Finding("secret", match.start(), match.start() + len(token), "a key or token")


# -- the owner's own terms ----------------------------------------------------------------


def fold(text: str) -> tuple[str, list[int]]:
    """Lower-cased text without accents, and the index in ``text`` of each folded character."""
    if text.isascii():
        return text.lower(), list(range(len(text)))
    folded: list[str] = []
    origin: list[int] = []
    for index, char in enumerate(text):
        for piece in unicodedata.normalize("NFKD", char).casefold():
            if unicodedata.combining(piece):
                continue
            folded.append(piece)
            origin.append(index)
    return "".join(folded), origin


def personal_terms(terms: Sequence[str]) -> Detector:
    """The owner's own words, ignoring case and accents; the words of a term may be joined
    by any punctuation or none ("Jane Doe" matches "jane-doe", "JaneDoe", "jane+doe")."""
    patterns = []
    for term in terms:
        words = re.findall(r"[^\W_]+", fold(term)[0])
        if words:
            body = r"[\W_]*".join(re.escape(word) for word in words)
            patterns.append(re.compile(rf"(?<![^\W_]){body}(?![^\W_])"))

    def detect(text: str) -> Iterator[Finding]:
        if not patterns:
            return
        folded, origin = fold(text)
        for pattern in patterns:
            for match in pattern.finditer(folded):
                start = origin[match.start()]
                end = origin[match.end() - 1] + 1
                yield Finding("personal_term", start, end, "one of your personal terms")

    return detect


#: What each kind is called on a card and in a refusal, for the kinds that carry one message.
KIND_NAMES: dict[str, str] = {
    "email": "an email address",
    "phone": "a phone number",
    "card": "a payment card number",
    "iban": "a bank account number (IBAN)",
    "government_id": "a national ID number",
    "secret": "a password, key or token",
    "personal_term": "one of your personal terms",
    "copied_text": "words copied from your messages",
}
