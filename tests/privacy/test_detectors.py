"""Each detector finds what it is for (planted) and stays quiet on ordinary text (clean)."""

from __future__ import annotations

import pytest

from spyglass.privacy import detectors
from spyglass.privacy.detectors import Finding


def kinds(found: list[Finding]) -> list[str]:
    return [f.kind for f in found]


def spans(text: str, found: list[Finding]) -> list[str]:
    return [text[f.start : f.end] for f in found]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("write to jane.doe@example.com today", "jane.doe@example.com"),
        ("JOHN+news@mail.example.co.uk", "JOHN+news@mail.example.co.uk"),
    ],
)
def test_an_email_address_is_found_with_its_exact_span(text: str, expected: str) -> None:
    assert spans(text, list(detectors.emails(text))) == [expected]


@pytest.mark.parametrize(
    "text",
    ["https://medium.com/@writer/a-post", "npm i @types/node", "python @decorators", "a@b"],
)
def test_handles_and_decorators_are_not_email_addresses(text: str) -> None:
    assert list(detectors.emails(text)) == []


@pytest.mark.parametrize(
    "text",
    ["call +44 20 7946 0958 now", "my number is (415) 555-0132", "+1 202-555-0143", "030 901820"],
)
def test_a_phone_number_written_as_people_write_them_is_found(text: str) -> None:
    detect = detectors.phone_numbers("DE" if text.startswith("030") else "US")
    assert kinds(list(detect(text))) == ["phone"]


@pytest.mark.parametrize(
    "text",
    [
        "iphone 15 pro 256gb",
        "https://example.com/article/20240512123456",
        "population of france 2023 68042591",
        "rfc 9110 http semantics",
        "ISBN 978-3-16-148410-0",
    ],
)
def test_years_ids_and_plain_digit_runs_are_not_phone_numbers(text: str) -> None:
    assert list(detectors.phone_numbers("US")(text)) == []


@pytest.mark.parametrize(
    "text", ["4111 1111 1111 1111", "5500-0000-0000-0004", "378282246310005", "6011111111111117"]
)
def test_a_luhn_valid_card_number_of_a_known_network_is_found(text: str) -> None:
    sentence = f"pay with {text}."
    assert spans(sentence, list(detectors.payment_cards(sentence))) == [text]


def test_a_card_number_inside_a_long_run_of_numbers_is_found() -> None:
    # Every group of the run was tried as a card's end, cubic in the run's length: a URL of
    # a thousand numbers joined by spaces took seconds to check.
    text = "1 " * 1000 + "4111 1111 1111 1111" + " 2" * 1000
    found = list(detectors.payment_cards(text))
    assert spans(text, found) == ["4111 1111 1111 1111"]


def _cards_tried_to_the_end(text: str) -> list[tuple[int, int]]:
    """The card finder before it tried only the groups nineteen digits reach (reference)."""
    import re

    found = []
    for run in detectors._DIGIT_RUN.finditer(text):
        groups = [
            (m.start() + run.start(), m.end() + run.start())
            for m in re.finditer(r"\d+", run.group())
        ]
        first = 0
        while first < len(groups):
            hit = None
            for last in range(len(groups) - 1, first - 1, -1):
                raw = text[groups[first][0] : groups[last][1]]
                digits = re.sub(r"\D", "", raw)
                if not 13 <= len(digits) <= 19 or len(set(re.sub(r"\d", "", raw))) > 1:
                    continue
                if (
                    detectors._CARD_PREFIX.match(digits)
                    and detectors.luhn_valid(digits)
                    and len(set(digits)) > 1
                ):
                    hit = last
                    break
            if hit is None:
                first += 1
                continue
            start, end = groups[first][0], groups[hit][1]
            if not re.match(r"[.,]\d|\w", text[end : end + 2]):
                found.append((start, end))
            first = hit + 1
    return found


def test_the_card_finder_finds_what_trying_every_group_found() -> None:
    import random

    rng = random.Random(12)
    cards = ["4111111111111111", "5500000000000004", "378282246310005", "6011111111111117"]
    for _ in range(300):
        parts = []
        for _ in range(rng.randrange(1, 12)):
            card = rng.choice(cards)
            cut = rng.randrange(1, 5)
            parts.append(
                rng.choice(
                    [
                        card,
                        " ".join(card[i : i + cut] for i in range(0, len(card), cut)),
                        str(rng.randrange(10**6)),
                    ]
                )
            )
        text = rng.choice([" ", "-", " x "]).join(parts)
        found = [(f.start, f.end) for f in detectors.payment_cards(text)]
        assert found == _cards_tried_to_the_end(text), text


@pytest.mark.parametrize(
    "text",
    ["4111 1111 1111 1112", "1234567890123456", "tweet 1790000000000000000", "0000000000000000"],
)
def test_numbers_that_fail_luhn_or_have_no_card_prefix_are_not_cards(text: str) -> None:
    assert list(detectors.payment_cards(text)) == []


@pytest.mark.parametrize(
    "text", ["DE89 3704 0044 0532 0130 00", "GB82WEST12345698765432", "fr1420041010050500013m02606"]
)
def test_an_iban_with_a_valid_checksum_is_found(text: str) -> None:
    assert kinds(list(detectors.ibans(f"send to {text} please"))) == ["iban"]


@pytest.mark.parametrize("text", ["DE89 3704 0044 0532 0130 01", "GB00WEST12345698765432", "AB12"])
def test_an_iban_shape_with_a_wrong_checksum_or_country_is_not_reported(text: str) -> None:
    assert list(detectors.ibans(text)) == []


@pytest.mark.parametrize(
    "text", ["ssn 123-45-6789", "SSN: 123 45 6789", "JG 12 34 56 C", "AB123456D"]
)
def test_ssn_and_nino_shapes_that_follow_the_issuing_rules_are_found(text: str) -> None:
    assert kinds(list(detectors.government_ids(text))) == ["government_id"]


@pytest.mark.parametrize(
    "text",
    ["000-12-3456", "666-12-3456", "912-34-5678", "123-00-4567", "2024-05-12", "GB123456A"],
)
def test_shapes_the_issuers_never_use_are_not_government_ids(text: str) -> None:
    assert list(detectors.government_ids(text)) == []


@pytest.mark.parametrize(
    ("secret", "what"),
    [
        ("AKIAIOSFODNN7EXAMPLE", "an AWS access key"),
        ("ghp_" + "A1b2" * 9, "a GitHub token"),
        ("github_pat_" + "11ABCDEFG0" * 6, "a GitHub token"),
        ("xoxb-123456789012-abcdefABCDEF", "a Slack token"),
        ("sk-proj-" + "Ab3" * 16, "an OpenAI key"),
        ("AIza" + "SyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q", "a Google API key"),
        ("sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc", "a Stripe key"),
        ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NSJ9.c2lnbmF0dXJlLXZhbHVl", "a JSON Web Token"),
        ("-----BEGIN RSA PRIVATE KEY-----", "a private key"),
    ],
)
def test_tokens_with_a_vendor_prefix_are_found_and_named(secret: str, what: str) -> None:
    found = list(detectors.secrets(f"use {secret} here"))
    assert [f.what for f in found] == [what]
    assert spans(f"use {secret} here", found) == [secret]


@pytest.mark.parametrize(
    "text",
    [
        "sk-learn tutorial for beginners",
        "how to use xox game",
        "eyJ is how base64 json starts",
        "AKIA prefix meaning",
        "https://github.com/psf/requests/commit/0e322af87745eff34caffe4df68456ebc20d9068",
    ],
)
def test_ordinary_text_about_tokens_is_not_a_token(text: str) -> None:
    assert list(detectors.secrets(text)) == []


def test_a_password_in_the_address_and_a_key_parameter_are_found() -> None:
    url = "https://bob:hunter2@example.com/?q=1&api_key=abc123xyz"
    assert spans(url, list(detectors.url_secrets(url))) == ["hunter2", "abc123xyz"]


def test_a_long_random_token_is_found_but_a_hex_hash_or_a_slug_is_not() -> None:
    token = "q8Zr4Lm2Xv9Tn6Bw1Kc7Hd3Jf5Gs0PyA"
    assert spans(f"k {token}", list(detectors.random_tokens(f"k {token}"))) == [token]
    assert list(detectors.random_tokens("0e322af87745eff34caffe4df68456ebc20d9068")) == []
    assert list(detectors.random_tokens("how-to-learn-rust-programming-for-beginners")) == []


def test_personal_terms_match_without_case_accents_or_separators() -> None:
    detect = detectors.personal_terms(["José Müller", "Acme Widgets"])
    text = "JOSE-MULLER works at acmewidgets and jose muller again"
    assert sorted(spans(text, list(detect(text)))) == ["JOSE-MULLER", "acmewidgets", "jose muller"]


def test_personal_terms_do_not_match_inside_other_words() -> None:
    detect = detectors.personal_terms(["Ann"])
    assert list(detect("annual report of the planning committee")) == []
    assert list(detectors.personal_terms([])("anything")) == []


def test_folding_keeps_a_map_back_to_the_original_characters() -> None:
    folded, origin = detectors.fold("Ÿé")
    assert folded == "ye" and origin == [0, 1]


@pytest.mark.parametrize(
    "text",
    ["4111.1111.1111.1111", "4111_1111_1111_1111", "4111/1111/1111/1111", "4111+1111+1111+1111"],
)
def test_a_card_number_grouped_by_dots_underscores_slashes_or_plus_signs_is_found(
    text: str,
) -> None:
    url = f"https://shop.example/pay/{text}/confirm"
    assert spans(url, list(detectors.payment_cards(url))) == [text]


@pytest.mark.parametrize(
    "text",
    [
        "p = 0.4111111111111111",
        "4111111111111111.5 metres",
        "4111.1111-1111 1111",
        "order_ref_x4111111111111111",
        "release 2026.12.05 build 4111",
    ],
)
def test_decimals_mixed_separators_and_numbers_inside_words_are_not_cards(text: str) -> None:
    assert list(detectors.payment_cards(text)) == []
