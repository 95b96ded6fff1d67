"""Receipts say whether anything left the device, and how each call ended."""

from __future__ import annotations

from spyglass.core.outcome import ErrorInfo, Outcome
from spyglass.net.errors import UNRESOLVED_NAME
from spyglass.privacy.receipts import build, entry

AT = "2026-11-30T14:02:09Z"


def outcome(
    capability: str, status: str, stage: str, code: str | None = None, reason: str | None = None
) -> Outcome:
    error = ErrorInfo(code, "message", reason=reason) if code else None
    provider = "searxng" if capability == "web.search" and stage == "execute" else None
    return Outcome(status, capability, 1, "id", stage, error=error, provider=provider)  # type: ignore[arg-type]


def test_an_answer_without_calls_stayed_on_this_device() -> None:
    assert build([]) == {"left_device": False, "summary": "Stayed on this device", "items": []}


def test_searches_and_reads_are_listed_with_provider_and_time() -> None:
    items = [
        entry(outcome("web.search", "ok", "execute"), {"query": "zebra facts"}, AT),
        entry(outcome("web.fetch", "ok", "execute"), {"url": "https://zoo.example/zebra"}, AT),
    ]
    receipt = build(items)
    assert receipt["left_device"] is True
    assert receipt["summary"] == (
        "Left this device: searched 'zebra facts' (SearXNG, 14:02 UTC), "
        "read zoo.example/zebra (14:02 UTC)"
    )
    assert receipt["items"][0]["provider"] == "searxng"


def test_declined_refused_and_failed_calls_appear_as_such() -> None:
    items = [
        entry(outcome("web.search", "denied", "confirm", "DENIED"), {"query": "a"}, AT),
        entry(
            outcome("web.fetch", "rejected", "check", "FETCH_NOT_PROVENANCED"),
            {"url": "https://x.example/"},
            AT,
        ),
        entry(
            outcome("web.fetch", "failed", "execute", "FETCH_TIMEOUT"),
            {"url": "https://y.example/"},
            AT,
        ),
    ]
    receipt = build(items)
    assert receipt["left_device"] is True
    assert receipt["summary"] == (
        "Left this device: read y.example/ (14:02 UTC, failed: FETCH_TIMEOUT); not sent: "
        "search 'a' (declined), read x.example/ (refused: FETCH_NOT_PROVENANCED)"
    )
    assert [i["left"] for i in receipt["items"]] == [False, False, True]


def test_only_refused_calls_still_stayed_on_this_device() -> None:
    items = [
        entry(outcome("web.search", "rejected", "check", "PRIVACY_BLOCKED"), {"query": "q"}, AT)
    ]
    summary = build(items)["summary"]
    assert summary == "Stayed on this device; not sent: search 'q' (refused: PRIVACY_BLOCKED)"


def test_a_read_whose_site_name_could_not_be_looked_up_stayed_on_this_device() -> None:
    failed = outcome("web.fetch", "failed", "execute", "FETCH_NETWORK_ERROR", UNRESOLVED_NAME)
    receipt = build([entry(failed, {"url": "https://nowhere.example/"}, AT)])
    assert receipt["left_device"] is False
    assert receipt["summary"] == (
        "Stayed on this device; not sent: read nowhere.example/ "
        "(failed: the site's name could not be looked up)"
    )


def test_a_call_whose_provider_name_could_not_be_looked_up_stayed_on_this_device() -> None:
    failed = outcome(
        "web.search", "failed", "execute", "SEARCH_PROVIDER_UNAVAILABLE", UNRESOLVED_NAME
    )
    receipt = build([entry(failed, {"query": "zebra facts"}, AT)])
    assert receipt["left_device"] is False
    assert receipt["summary"] == (
        "Stayed on this device; not sent: search 'zebra facts' "
        "(failed: SearXNG's name could not be looked up)"
    )


def test_a_card_that_expired_unanswered_is_not_recorded_as_declined() -> None:
    expired = outcome("web.search", "denied", "confirm", "INVALID_CONFIRMATION", "expired")
    swept = outcome("web.search", "denied", "confirm", "CONFIRMATION_EXPIRED", "expired")
    items = [entry(expired, {"query": "a"}, AT), entry(swept, {"query": "b"}, AT)]
    assert build(items)["summary"] == (
        "Stayed on this device; not sent: search 'a' (expired before it was approved), "
        "search 'b' (expired before it was approved)"
    )


def test_a_rendered_read_says_so_and_names_the_other_hosts_it_contacted() -> None:
    rendered = Outcome(
        "ok",
        "web.fetch",
        1,
        "id",
        "execute",
        result={"rendered": True, "contacted_hosts": ["cdn.example.net", "api.example.org"]},
    )
    alone = Outcome("ok", "web.fetch", 1, "id", "execute", result={"rendered": True})
    items = [
        entry(rendered, {"url": "https://app.example/"}, AT),
        entry(alone, {"url": "https://docs.example/"}, AT),
    ]
    receipt = build(items)
    assert receipt["summary"] == (
        "Left this device: read app.example/ (rendered, contacted 2 other hosts, 14:02 UTC), "
        "read docs.example/ (rendered, 14:02 UTC)"
    )
    assert receipt["items"][0]["contacted_hosts"] == ["cdn.example.net", "api.example.org"]


def test_a_call_that_ran_without_a_card_says_so_and_by_which_rule() -> None:
    from dataclasses import replace

    searched = replace(outcome("web.search", "ok", "execute"), unasked="flagged")
    read = replace(outcome("web.fetch", "ok", "execute"), unasked="conversation")
    items = [
        entry(searched, {"query": "zebra facts"}, AT),
        entry(read, {"url": "https://zoo.example/zebra"}, AT),
    ]
    assert [i["unasked"] for i in items] == ["flagged", "conversation"]
    assert build(items)["summary"] == (
        "Left this device: searched 'zebra facts' (SearXNG, 14:02 UTC, not asked: nothing "
        "flagged it), read zoo.example/zebra (14:02 UTC, not asked: allowed for this "
        "conversation)"
    )
    assert "unasked" not in entry(outcome("web.search", "ok", "execute"), {"query": "a"}, AT)
