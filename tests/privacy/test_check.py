"""The privacy check runs in the executor's check stage: warn the approver, or block."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from spyglass.core.context import Turn
from spyglass.core.policy import WEB_ACCESS
from spyglass.paths import Paths
from spyglass.privacy.check import PrivacyCheck
from spyglass.runtime import Runtime, build_runtime
from spyglass.settings import PrivacySettings
from tests.support.privacy_payloads import FAMILIES, NOT_PROMISED, TERMS, hostile

EMAIL_QUERY = "reply from jane.doe@example.com about the lease"


def runtime_with(paths: Paths, **overrides: Any) -> Runtime:
    runtime = build_runtime(paths, overrides=overrides)
    runtime.policy.set(WEB_ACCESS, True)
    return runtime


def audit(runtime: Runtime) -> list[dict[str, Any]]:
    return [json.loads(line) for line in runtime.paths.audit_file.read_text().splitlines()]


async def test_a_finding_travels_with_the_pending_call_and_only_its_kind_is_audited(
    paths: Paths,
) -> None:
    runtime = runtime_with(paths)
    outcome = await runtime.executor.ainvoke("web.search", 1, {"query": EMAIL_QUERY}, channel="cli")
    assert outcome.status == "pending_confirmation"
    assert outcome.pending_confirmation is not None
    (notice,) = outcome.pending_confirmation.to_dict()["notices"]
    assert notice["kind"] == "privacy.email" and notice["message"] == "contains an email address"
    assert EMAIL_QUERY[notice["start"] : notice["end"]] == "jane.doe@example.com"
    assert notice["argument"] == "query"
    (event,) = audit(runtime)
    assert event["findings"] == ["email"]
    assert "jane" not in runtime.paths.audit_file.read_text()


async def test_on_a_delegated_channel_a_finding_blocks_the_call_before_it_runs(
    paths: Paths,
) -> None:
    runtime = runtime_with(paths, **{"channels.mcp.confirmation": "delegated"})
    outcome = await runtime.executor.ainvoke("web.search", 1, {"query": EMAIL_QUERY}, channel="mcp")
    assert outcome.status == "rejected" and outcome.stage == "check"
    assert outcome.error is not None and outcome.error.code == "PRIVACY_BLOCKED"
    assert "an email address" in outcome.error.message and "(email)" in outcome.error.message
    assert "jane" not in outcome.error.message
    (event,) = audit(runtime)
    assert event["findings"] == ["email"] and event["code"] == "PRIVACY_BLOCKED"
    assert "jane" not in runtime.paths.audit_file.read_text()


async def test_the_owner_can_block_calls_with_findings_even_where_a_person_approves(
    paths: Paths,
) -> None:
    blocking = runtime_with(paths, **{"privacy.on_finding": "block"})
    outcome = await blocking.executor.ainvoke(
        "web.search", 1, {"query": "call +44 20 7946 0958"}, channel="cli"
    )
    assert outcome.error is not None and outcome.error.code == "PRIVACY_BLOCKED"
    assert "owner's privacy setting" in outcome.error.message
    assert "phone number" in outcome.error.message


async def test_a_clean_query_carries_no_privacy_notice_and_no_audited_findings(
    paths: Paths,
) -> None:
    runtime = runtime_with(paths)
    outcome = await runtime.executor.ainvoke(
        "web.search", 1, {"query": "zebra facts"}, channel="cli"
    )
    assert outcome.pending_confirmation is not None
    assert outcome.pending_confirmation.notices == ()
    assert "findings" not in audit(runtime)[0]


async def test_a_fetch_url_that_carries_the_users_words_is_flagged_on_the_card(
    paths: Paths,
) -> None:
    runtime = runtime_with(paths)
    said = "my sister Maria has been diagnosed with a rare kidney condition last week"
    url = "https://x.example/log?d=" + said.replace(" ", "+")
    turn = Turn(private_texts=(said,))
    outcome = await runtime.executor.ainvoke("web.fetch", 1, {"url": url}, channel="cli", turn=turn)
    assert outcome.pending_confirmation is not None
    # (fetch.render's notice that the page may be rendered comes after, on every such card.)
    notice, *_ = outcome.pending_confirmation.notices
    assert notice.kind == "privacy.copied_text"
    assert notice.message == "contains 13 words of your messages"
    assert notice.start is not None and url[notice.start : notice.end] == url.split("=")[1]


@pytest.mark.parametrize(
    ("query", "kind"),
    [
        ("4111 1111 1111 1111 expiry", "card"),
        ("wire to DE89 3704 0044 0532 0130 00", "iban"),
        ("ssn 123-45-6789 lookup", "government_id"),
        ("ghp_" + "A1b2" * 9, "secret"),
    ],
)
def test_every_kind_reaches_the_check(query: str, kind: str) -> None:
    assert [f.kind for f in PrivacyCheck(PrivacySettings()).query(query)] == [kind]


def test_personal_terms_come_from_the_settings() -> None:
    check = PrivacyCheck(PrivacySettings(personal_terms=["Initech"]))
    assert [f.kind for f in check.query("initech layoffs 2024")] == ["personal_term"]


def test_user_colon_password_in_an_address_is_a_secret_not_an_email() -> None:
    found = PrivacyCheck(PrivacySettings()).url("https://bob:hunter2@example.com/")
    assert [f.kind for f in found] == ["secret"]


def test_a_query_string_token_is_flagged_but_a_hash_in_the_path_is_not() -> None:
    check = PrivacyCheck(PrivacySettings())
    token = "q8Zr4Lm2Xv9Tn6Bw1Kc7Hd3Jf5Gs0PyA"
    assert [f.kind for f in check.url(f"https://a.example/cb?code={token}")] == ["secret"]
    assert check.url(f"https://a.example/files/{token}/view") == []


GITHUB_TOKEN = "ghp_" + "A1b2C3d4" * 4 + "E5f6"
WIDE_EMAIL = "ｊａｎｅ＠ｅｘａｍｐｌｅ．ｃｏｍ"
WIDE_CARD = "４１１１-１１１１-１１１１-１１１１"


@pytest.mark.parametrize(
    ("where", "text", "kind", "flagged"),
    [
        ("query", "write to jane.doe＠example.com", "email", "jane.doe＠example.com"),
        (
            "query",
            "ｊａｎｅ＠ｅｘａｍｐｌｅ．ｃｏｍ reply",
            "email",
            "ｊａｎｅ＠ｅｘａｍｐｌｅ．ｃｏｍ",
        ),
        ("query", "card ٤١١١ ١١١١ ١١١١ ١١١١ expiry", "card", "٤١١١ ١١١١ ١١١١ ١١١١"),
        (
            "query",
            "pay ４１１１-１１１１-１１１１-１１１１",
            "card",
            "４１１１-１１１１-１１１１-１１１１",
        ),
        (
            "query",
            f"token {GITHUB_TOKEN[:9]}\u200b{GITHUB_TOKEN[9:]} leaked",
            "secret",
            f"{GITHUB_TOKEN[:9]}\u200b{GITHUB_TOKEN[9:]}",
        ),
        ("url", "https://a.example/pay/4111.1111.1111.1111", "card", "4111.1111.1111.1111"),
        ("url", "https://a.example/4111/1111/1111/1111/x", "card", "4111/1111/1111/1111"),
        ("url", "https://a.example/?c=4111_1111_1111_1111", "card", "4111_1111_1111_1111"),
        (
            "url",
            "https://a.example/e/amFuZS5k/b2VAZXhhbXBs/ZS5jb20",
            "email",
            "amFuZS5k/b2VAZXhhbXBs/ZS5jb20",
        ),
        (
            "url",
            "https://a.example/?d=f6a616e652e646f65406578616d706c652e636f6d",
            "email",
            "6a616e652e646f65406578616d706c652e636f6d",
        ),
    ],
)
def test_look_alike_invisible_and_shifted_spellings_are_found_on_what_was_written(
    where: str, text: str, kind: str, flagged: str
) -> None:
    check = PrivacyCheck(PrivacySettings())
    found = check.query(text) if where == "query" else check.url(text)
    assert [(f.kind, text[f.start : f.end]) for f in found] == [(kind, flagged)]


def test_copied_words_camel_cased_into_an_address_are_flagged_on_that_segment() -> None:
    said = "my sister Maria has been diagnosed with a rare kidney condition last week"
    camel = "".join(word.capitalize() for word in said.split())
    url = f"https://x.example/log/{camel}/1"
    (finding,) = PrivacyCheck(PrivacySettings(), [said]).url(url)
    assert finding.kind == "copied_text" and url[finding.start : finding.end] == camel


PRIVATE = [
    "My landlord at 12 Elm Street is refusing to return the deposit of 1200 euros because "
    "of a stain on the carpet, and my sister Maria thinks I should write to the council "
    "about it before the end of the month, but I would rather talk to him once more first.",
    "Notes from the doctor: the test results came back fine, the next appointment is on "
    "the third of March, bring the insurance letter and the list of medicines you take.",
]
CARRIER_QUERIES = [
    "best hiking boots for wide feet",
    "how to descale a kettle with vinegar",
    "train times london to leeds sunday",
    "is it safe to eat raw cookie dough",
]
CARRIER_URLS = [
    "https://www.example.org/guides/hiking/boots",
    "https://news.example.com/2026/12/05/weather-warning-issued",
    "https://shop.example.net/products/kettle-descaler?ref=home",
    "https://docs.example.dev/reference/api/v2/index.html",
]


def test_every_hostile_family_the_check_promises_to_read_is_found_for_every_kind() -> None:
    rng = random.Random(48)
    payloads = hostile(rng, CARRIER_QUERIES, CARRIER_URLS, PRIVATE, per_family=2)
    check = PrivacyCheck(PrivacySettings(personal_terms=TERMS), PRIVATE)
    missed: dict[str, list[str]] = {}
    for payload in payloads:
        found = check.query(payload.text) if payload.where == "query" else check.url(payload.text)
        if payload.kind not in {f.kind for f in found}:
            missed.setdefault(payload.family, []).append(f"{payload.kind}: {payload.text}")
    assert {family: cases for family, cases in missed.items() if family not in NOT_PROMISED} == {}
    assert {p.family for p in payloads} == set(FAMILIES)


ORDINARY = [
    "what is 0.4111111111111111 rounded to 3 places",
    "ubuntu 24.04.1 release notes",
    "price 1.234.567,89 euro in dollars",
    "192.168.100.200 router login",
    "東京 天気 ５日間",
    "مواعيد الصلاة في القاهرة ٢٠٢٦",
    "iPhone 15 Pro Max vs Pixel 9 Pro XL camera comparison",
    "https://github.com/pallets/flask/commit/0e322af87745eff34caffe4df68456ebc20d9068",
    "https://www.example.org/how-much-does-a-home-remodel-cost-in-california",
    "https://cdn.example.com/img/550e8400-e29b-41d4-a716-446655440000.png",
    "https://example.com/articles/2026/12/05/1234567/story.html?page=2&sort=new",
    "https://ja.wikipedia.org/wiki/%E6%9D%B1%E4%BA%AC%E9%83%BD",
    "https://a.example/static/js/main.7f3c9a1b.chunk.js",
    "https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=42s",
]


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_queries_and_addresses_carry_no_finding(text: str) -> None:
    check = PrivacyCheck(PrivacySettings(personal_terms=TERMS), PRIVATE)
    assert (check.url(text) if text.startswith("https://") else check.query(text)) == []


@pytest.mark.parametrize(
    ("tool", "argument", "value"),
    [
        ("web.search", "query", "ｍｙ ｅｍａｉｌ ｉｓ ｊａｎｅ＠ｅｘａｍｐｌｅ．ｃｏｍ"),
        ("web.search", "query", "refund to 4111\u200b1111\u200b1111\u200b1111"),
        ("web.fetch", "url", "https://x.example/t/amFuZS5k/b2VAZXhh/bXBsZS5jb20"),
        ("web.fetch", "url", "https://x.example/p/4111.1111.1111.1111"),
        ("web.fetch", "url", "https://x.example/?d=f6a616e65406578616d706c652e636f6d"),
    ],
)
async def test_on_a_delegated_channel_a_hidden_spelling_of_private_data_is_blocked(
    paths: Paths, tool: str, argument: str, value: str
) -> None:
    runtime = runtime_with(paths, **{"channels.mcp.confirmation": "delegated"})
    outcome = await runtime.executor.ainvoke(tool, 1, {argument: value}, channel="mcp")
    assert outcome.error is not None and outcome.error.code == "PRIVACY_BLOCKED"
    assert outcome.stage == "check"


async def test_a_domain_filter_spelled_from_private_words_is_flagged_like_the_query(
    paths: Paths,
) -> None:
    runtime = runtime_with(paths, **{"privacy.personal_terms": ["Quillfeather"]})
    arguments = {"query": "tide tables", "include_domains": ["quillfeather-road.example.com"]}
    outcome = await runtime.executor.ainvoke("web.search", 1, arguments, channel="cli")
    assert outcome.pending_confirmation is not None
    (notice,) = outcome.pending_confirmation.to_dict()["notices"]
    assert (notice["kind"], notice["argument"]) == ("privacy.personal_term", "include_domains")
    assert "start" not in notice
    clean = {"query": "tide tables", "include_domains": ["python.org"]}
    plain = await runtime.executor.ainvoke("web.search", 1, clean, channel="cli")
    assert plain.pending_confirmation is not None
    assert plain.pending_confirmation.notices == ()
