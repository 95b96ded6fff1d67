"""The privacy check runs in the executor's check stage: warn the approver, or block."""

from __future__ import annotations

import json
from typing import Any

import pytest

from spyglass.core.context import Turn
from spyglass.core.policy import WEB_ACCESS
from spyglass.paths import Paths
from spyglass.privacy.check import PrivacyCheck
from spyglass.runtime import Runtime, build_runtime
from spyglass.settings import PrivacySettings

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
