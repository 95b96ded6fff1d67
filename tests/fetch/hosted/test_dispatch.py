"""Routing a fetch: weights, pinning, fallback only for retryable failures, keys, notices."""

from __future__ import annotations

import uuid
from collections import Counter

import pytest

from spyglass.capabilities.fetch import extract
from spyglass.errors import CapabilityError
from spyglass.fetch.hosted import READERS
from spyglass.fetch.hosted.dispatch import announce, check, endpoint_for, fetch, route
from spyglass.fetch.page import ReadPage
from spyglass.net.errors import TargetRejected
from spyglass.settings import FetchSettings, Settings
from tests.fetch.hosted.replay import PAGE_URL
from tests.search.replay import ReplayServer, Reply

SCRAPED = {"success": True, "data": {"markdown": "Rain tonight.", "metadata": {}}}
KEENABLE = {"url": PAGE_URL, "title": "T", "content": "From keenable."}


def _route(spec: str, invocation: str, fallback: list[str] | None = None) -> list[str]:
    settings = FetchSettings(providers=spec, fallback=fallback or [])
    return route(PAGE_URL, settings, capability="web.fetch", invocation_id=invocation)


def test_the_default_is_direct_and_announces_nothing() -> None:
    order, notices = check(PAGE_URL, Settings(), capability="web.fetch", invocation_id="a")
    assert order == ["direct"] and notices == []


def test_the_same_invocation_always_reaches_the_same_provider() -> None:
    for _ in range(30):
        invocation = uuid.uuid4().hex
        first = _route("direct:50,firecrawl:50", invocation)[0]
        assert all(_route("direct:50,firecrawl:50", invocation)[0] == first for _ in range(3))


def test_the_split_over_many_invocations_follows_the_weights() -> None:
    runs = 5000
    seen = Counter(_route("direct:70,firecrawl:30", f"{n:032x}")[0] for n in range(runs))
    assert abs(seen["firecrawl"] / runs - 0.3) < 0.03, seen


def test_a_bad_spec_is_not_configured_and_names_the_setting() -> None:
    with pytest.raises(CapabilityError) as caught:
        _route("firecrawl:60,keenable:60", "a")
    assert caught.value.code == "FETCH_NOT_CONFIGURED" and caught.value.status == "rejected"
    assert "fetch.providers" in caught.value.message


def test_a_url_a_reader_may_not_see_is_refused_when_a_reader_is_chosen() -> None:
    settings = FetchSettings(providers="firecrawl")
    with pytest.raises(TargetRejected):
        route("http://example.com/", settings, capability="web.fetch", invocation_id="a")


def test_a_fallback_reader_is_dropped_for_a_url_it_may_not_see() -> None:
    settings = FetchSettings(providers="direct", fallback=["firecrawl"])
    order = route("http://example.com/", settings, capability="web.fetch", invocation_id="a")
    assert order == ["direct"]
    assert _route("direct", "a", ["firecrawl"]) == ["direct", "firecrawl"]


def test_a_search_key_serves_the_same_providers_reader_unless_fetch_sets_its_own() -> None:
    shared = Settings.model_validate({"search": {"firecrawl": {"api_key": "from-search"}}})
    assert endpoint_for(READERS["firecrawl"], shared).api_key == "from-search"
    own = Settings.model_validate(
        {
            "search": {"firecrawl": {"api_key": "from-search"}},
            "fetch": {"firecrawl": {"api_key": "from-fetch"}},
        }
    )
    assert endpoint_for(READERS["firecrawl"], own).api_key == "from-fetch"


def test_a_chosen_reader_without_a_key_is_refused_before_anyone_is_asked() -> None:
    settings = Settings.model_validate({"fetch": {"providers": "firecrawl"}})
    with pytest.raises(CapabilityError) as caught:
        check(PAGE_URL, settings, capability="web.fetch", invocation_id="a")
    assert caught.value.code == "FETCH_NOT_CONFIGURED"
    assert "fetch.firecrawl.api_key" in caught.value.message


def test_the_notice_says_who_will_fetch_the_page() -> None:
    (notice,) = announce(["firecrawl"])
    assert notice.kind == "fetch.provider" and notice.argument == "url"
    assert notice.message.startswith("Firecrawl will fetch this page for you")
    (fallback,) = announce(["direct", "keenable"])
    assert "Spyglass will fetch this page itself" in fallback.message
    assert "Keenable" in fallback.message


async def _direct_never() -> ReadPage:
    raise AssertionError("direct must not run")


async def test_a_retryable_failure_moves_on_to_the_fallback(replay: ReplayServer) -> None:
    replay.set("/v2/scrape", Reply(503, {"success": False}))
    replay.set("/v1/fetch", Reply(body=KEENABLE))
    settings = Settings.model_validate(
        {
            "fetch": {
                "providers": "firecrawl",
                "fallback": ["keenable"],
                "firecrawl": {"base_url": replay.url, "api_key": "k1"},
                "keenable": {"base_url": replay.url, "api_key": "k2"},
            }
        }
    )
    tried: list[str] = []
    page = await fetch(
        PAGE_URL,
        settings,
        ["firecrawl", "keenable"],
        direct=_direct_never,
        report=tried.append,
        extract=extract,
    )
    assert tried == ["firecrawl", "keenable"]
    assert "From keenable." in page.document.text


async def test_a_failure_a_retry_cannot_fix_is_reported_without_failover(
    replay: ReplayServer,
) -> None:
    replay.set("/v2/scrape", Reply(402, {"success": False}))
    replay.set("/v1/fetch", Reply(body=KEENABLE))
    settings = Settings.model_validate(
        {
            "fetch": {
                "firecrawl": {"base_url": replay.url, "api_key": "k1"},
                "keenable": {"base_url": replay.url, "api_key": "k2"},
            }
        }
    )
    tried: list[str] = []
    with pytest.raises(CapabilityError) as caught:
        await fetch(
            PAGE_URL,
            settings,
            ["firecrawl", "keenable"],
            direct=_direct_never,
            report=tried.append,
            extract=extract,
        )
    assert caught.value.code == "FETCH_QUOTA_EXCEEDED"
    assert tried == ["firecrawl"]


def test_every_reader_has_its_own_settings_table() -> None:
    from spyglass.settings import READER_TABLES

    assert sorted(READER_TABLES) == sorted(READERS)
