"""Routing a fetch: weights, pinning, fallback only for retryable failures, keys, notices."""

from __future__ import annotations

import uuid
from collections import Counter

import pytest

from spyglass.capabilities.fetch import extract
from spyglass.errors import CapabilityError
from spyglass.fetch.hosted import READERS
from spyglass.fetch.hosted.dispatch import announce, check, endpoint_for, fetch, route
from spyglass.fetch.hosted.jina import JinaReader
from spyglass.fetch.page import ReadPage
from spyglass.net.errors import UNRESOLVED_NAME, TargetRejected, network_error
from spyglass.net.transport import UNRESOLVED
from spyglass.providers.exchange import ProviderRequest
from spyglass.settings import FetchSettings, Settings
from tests.fetch.hosted.replay import PAGE_URL
from tests.search.replay import ReplayServer, Reply
from tests.support.unresolving import Unresolving

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


class _UnresolvedJina(JinaReader):
    """Jina Reader, its name unknown to every resolver (no network needed)."""

    async def exchange(
        self, request: ProviderRequest, *, timeout: float, max_bytes: int, **_: object
    ) -> bytes:
        return await super().exchange(
            request, timeout=timeout, max_bytes=max_bytes, clients=Unresolving()
        )


class _BusyJina(JinaReader):
    """Jina Reader that was reached (the URL went to it) and answered HTTP 503."""

    async def exchange(self, request: ProviderRequest, **_: object) -> bytes:
        raise self.failure("PROVIDER_UNAVAILABLE", "jina answered HTTP 503", retryable=True)


async def _unresolved_site() -> ReadPage:
    raise network_error(UNRESOLVED, reason=UNRESOLVED_NAME)


async def _read_failure(reader: JinaReader, direct: object = None) -> CapabilityError:
    order = ["jina", "direct"] if direct is not None else ["jina"]
    settings = Settings.model_validate({"fetch": {"providers": "jina", "fallback": order[1:]}})
    with pytest.raises(CapabilityError) as caught:
        await fetch(
            PAGE_URL,
            settings,
            order,
            direct=direct or _direct_never,  # type: ignore[arg-type]
            report=lambda name: None,
            extract=extract,
            readers={"jina": reader},
        )
    return caught.value


async def test_a_reader_whose_name_cannot_be_looked_up_was_sent_nothing() -> None:
    failure = await _read_failure(_UnresolvedJina())
    assert failure.code == "FETCH_PROVIDER_UNAVAILABLE"
    assert failure.reason == UNRESOLVED_NAME
    assert "jina's address could not be looked up" in failure.message
    # Nor was anything sent when the site's own name then failed too.
    assert (await _read_failure(_UnresolvedJina(), _unresolved_site)).reason == UNRESOLVED_NAME


async def test_a_read_whose_reader_was_reached_left_even_when_the_site_name_then_failed() -> None:
    failure = await _read_failure(_BusyJina(), _unresolved_site)
    assert failure.reason is None
    assert "after jina failed first" in failure.message


async def test_a_read_that_reached_the_site_after_the_reader_failed_says_it_left() -> None:
    async def site_broke_off() -> ReadPage:
        raise network_error("the connection to the site broke off; try again later")

    failure = await _read_failure(_UnresolvedJina(), site_broke_off)
    assert failure.reason is None
