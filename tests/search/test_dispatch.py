"""One search end to end below the executor: configuration, fallback, cleaning, redaction."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from spyglass.net.errors import UNRESOLVED_NAME
from spyglass.paths import Paths
from spyglass.search.dispatch import endpoint_for, search
from spyglass.search.model import SearchFailure, SearchQuery
from spyglass.search.providers import PROVIDERS
from spyglass.settings import MASK, SearchSettings, load_settings
from tests.search.replay import SECRET, ReplayServer, Reply
from tests.support.unresolving import Unresolving

SEARXNG_OK = {
    "query": "q",
    "results": [{"url": "https://a.example/", "title": "A", "content": "a"}],
    "unresponsive_engines": [],
}
DDG_PAGE = (
    "<html><body><div id='links'><div class='result web-result'><h2><a class='result__a' "
    "href='https://d.example/'>D</a></h2><a class='result__snippet'>d</a></div></div></body></html>"
)


async def _run(
    settings: SearchSettings, query: SearchQuery | None = None
) -> tuple[dict[str, Any], list[str]]:
    reported: list[str] = []
    result = await search(
        query or SearchQuery("q"),
        settings,
        PROVIDERS,
        capability="web.search",
        invocation_id="0123",
        report=reported.append,
    )
    return result, reported


async def _fail(settings: SearchSettings) -> tuple[SearchFailure, list[str]]:
    reported: list[str] = []
    with pytest.raises(SearchFailure) as caught:
        await search(
            SearchQuery("q"),
            settings,
            PROVIDERS,
            capability="web.search",
            invocation_id="0123",
            report=reported.append,
        )
    return caught.value, reported


def _settings(**values: Any) -> SearchSettings:
    return SearchSettings.model_validate(values)


def _searxng_falling_back(replay: ReplayServer, *fallback: str, **values: Any) -> SearchSettings:
    """SearXNG first, then ``fallback`` in order; ``replay`` answers SearXNG and DuckDuckGo."""
    return _settings(
        providers="searxng",
        fallback=list(fallback),
        searxng={"base_url": replay.url},
        duckduckgo={"base_url": replay.url},
        **values,
    )


async def test_a_search_returns_the_design_result_shape(replay: ReplayServer) -> None:
    replay.set("/search", Reply(body=SEARXNG_OK))
    result, reported = await _run(_settings(providers="searxng", searxng={"base_url": replay.url}))
    assert reported == ["searxng"]
    assert result["query"] == "q" and result["provider"] == "searxng"
    assert result["results"] == [{"title": "A", "url": "https://a.example/", "snippet": "a"}]
    assert result["result_count"] == 1 and result["retrieved_at"].endswith("Z")
    assert "partial" not in result and "notes" not in result


async def test_searxng_without_a_base_url_says_exactly_what_to_set() -> None:
    failure, reported = await _fail(_settings(providers="searxng"))
    assert failure.code == "SEARCH_NOT_CONFIGURED" and reported == ["searxng"]
    assert "search.searxng.base_url" in failure.message
    assert "SPYGLASS_SEARCH__SEARXNG__BASE_URL" in failure.message


@pytest.mark.parametrize("name", ["brave", "tavily", "kagi", "exa", "firecrawl", "keenable"])
async def test_keyed_providers_without_a_key_say_where_the_key_goes(name: str) -> None:
    failure, _ = await _fail(_settings(providers=name))
    assert failure.code == "SEARCH_NOT_CONFIGURED"
    assert f"search.{name}.api_key" in failure.message
    assert f"SPYGLASS_SEARCH__{name.upper()}__API_KEY" in failure.message


async def test_a_base_url_that_is_not_http_is_not_configured() -> None:
    failure, _ = await _fail(_settings(providers="searxng", searxng={"base_url": "file:///etc"}))
    assert failure.code == "SEARCH_NOT_CONFIGURED" and "http://" in failure.message


async def test_an_unknown_provider_is_not_configured() -> None:
    failure, _ = await _fail(_settings(providers="google"))
    assert failure.code == "SEARCH_NOT_CONFIGURED" and "duckduckgo" in failure.message


def test_provider_keys_load_from_spyglass_environment_variables(tmp_path: Path) -> None:
    settings = load_settings(
        Paths(tmp_path),
        environ={
            "SPYGLASS_SEARCH__PROVIDERS": "brave",
            "SPYGLASS_SEARCH__BRAVE__API_KEY": SECRET,
            "SPYGLASS_SEARCH__BRAVE__BASE_URL": "http://127.0.0.1:9/",
        },
    )
    endpoint = endpoint_for(PROVIDERS["brave"], settings.search)
    assert endpoint.api_key == SECRET and endpoint.base_url == "http://127.0.0.1:9/"
    assert SECRET not in repr(endpoint)
    assert SECRET not in str(settings.public_dict())
    assert settings.public_dict()["search"]["brave"]["api_key"] == MASK


async def test_without_a_fallback_list_a_failure_is_not_silently_rerouted(
    replay: ReplayServer,
) -> None:
    replay.set("/search", Reply(503, {}))
    failure, reported = await _fail(
        _settings(providers="searxng", searxng={"base_url": replay.url})
    )
    assert failure.code == "SEARCH_PROVIDER_UNAVAILABLE" and reported == ["searxng"]


async def test_duckduckgo_unreachable_says_how_to_search_through_a_searxng_of_ones_own(
    replay: ReplayServer,
) -> None:
    replay.set("/html/", Reply(503, "<html></html>", {"Content-Type": "text/html"}))
    failure, _ = await _fail(_settings(duckduckgo={"base_url": replay.url}))
    assert failure.code == "SEARCH_PROVIDER_UNAVAILABLE"
    assert 'set search.providers = "searxng" and search.searxng.base_url' in failure.message
    # With a SearXNG configured, its own failure names its address instead.
    replay.set("/search", Reply(503, {}))
    own, _ = await _fail(_settings(providers="searxng", searxng={"base_url": replay.url}))
    assert "search.providers" not in own.message


async def test_a_retryable_failure_falls_back_and_the_answer_names_who_answered(
    replay: ReplayServer,
) -> None:
    replay.set("/search", Reply(503, {}))
    replay.set("/html/", Reply(body=DDG_PAGE, headers={"Content-Type": "text/html"}))
    settings = _searxng_falling_back(replay, "duckduckgo")
    result, reported = await _run(settings)
    assert reported[-1] == "duckduckgo" and result["provider"] == "duckduckgo"
    assert result["results"][0]["url"] == "https://d.example/"
    assert result["notes"][0].startswith("answered by fallback provider duckduckgo")
    assert "HTTP 503" in result["notes"][0]


async def test_a_failure_a_retry_cannot_fix_does_not_fall_back(replay: ReplayServer) -> None:
    replay.set("/search", Reply(403, "<html>Forbidden</html>", {"Content-Type": "text/html"}))
    settings = _searxng_falling_back(replay, "duckduckgo")
    failure, reported = await _fail(settings)
    assert failure.code == "SEARCH_PROVIDER_REJECTED" and reported == ["searxng"]
    assert [r.path for r in replay.requests] == ["/search"]


async def test_when_every_provider_fails_the_first_failure_is_reported_with_the_rest(
    replay: ReplayServer,
) -> None:
    replay.set("/search", Reply(503, {}))
    replay.set("/html/", Reply(202, "<html></html>", {"Content-Type": "text/html"}))
    settings = _searxng_falling_back(replay, "duckduckgo", "brave")
    failure, _ = await _fail(settings)
    assert failure.code == "SEARCH_PROVIDER_UNAVAILABLE" and failure.retryable
    assert "duckduckgo: duckduckgo is rate-limiting" in failure.message
    assert "brave: brave needs an API key" in failure.message


async def _fail_through(settings: SearchSettings, clients: Unresolving) -> SearchFailure:
    with pytest.raises(SearchFailure) as caught:
        await search(
            SearchQuery("q"),
            settings,
            PROVIDERS,
            capability="web.search",
            invocation_id="0123",
            report=lambda name: None,
            clients=clients,
        )
    return caught.value


async def test_providers_whose_names_cannot_be_looked_up_say_nothing_was_sent(
    replay: ReplayServer,
) -> None:
    clients = Unresolving()
    failure = await _fail_through(_searxng_falling_back(replay, "duckduckgo"), clients)
    assert clients.tried == ["searxng", "duckduckgo"]
    assert failure.code == "SEARCH_PROVIDER_UNAVAILABLE"
    assert failure.reason == UNRESOLVED_NAME
    assert "could not be looked up" in failure.message
    assert replay.requests == []


async def test_a_failure_after_one_provider_was_reached_does_not_say_nothing_was_sent(
    replay: ReplayServer,
) -> None:
    replay.set("/search", Reply(503, {}))
    # SearXNG answered (the query reached it), then DuckDuckGo's name did not resolve.
    failure = await _fail_through(
        _searxng_falling_back(replay, "duckduckgo"), Unresolving({"duckduckgo"})
    )
    assert [r.path for r in replay.requests] == ["/search"]
    assert failure.reason is None
    # And the other way round: nothing reached the first, the fallback answered HTTP 503.
    replay.set("/html/", Reply(503, "<html></html>", {"Content-Type": "text/html"}))
    failure = await _fail_through(
        _searxng_falling_back(replay, "duckduckgo"), Unresolving({"searxng"})
    )
    assert failure.reason is None


async def test_no_fallback_starts_once_the_deadline_is_spent(replay: ReplayServer) -> None:
    replay.set("/search", Reply(stall=True))
    replay.set("/html/", Reply(body=DDG_PAGE, headers={"Content-Type": "text/html"}))
    settings = _searxng_falling_back(replay, "duckduckgo", timeout_seconds=0.4)
    failure, _ = await _fail(settings)
    assert "duckduckgo not tried (no time left)" in failure.message
    assert [r.path for r in replay.requests] == ["/search"]


async def test_a_key_echoed_by_a_provider_never_reaches_a_message_or_result(
    replay: ReplayServer,
) -> None:
    settings = _settings(providers="tavily", tavily={"base_url": replay.url, "api_key": SECRET})
    replay.set("/search", Reply(400, {"detail": f"bad request for key {SECRET}"}))
    failure, _ = await _fail(settings)
    assert SECRET not in failure.message and MASK in failure.message
    echo = {"results": [{"title": f"t {SECRET}", "url": "https://a.example/", "content": SECRET}]}
    replay.set("/search", Reply(body=echo))
    result, _ = await _run(settings)
    assert SECRET not in str(result)


async def test_a_provider_that_cannot_filter_by_date_says_so(replay: ReplayServer) -> None:
    replay.set("/search", Reply(body={"meta": {}, "data": []}))
    settings = _settings(
        providers="kagi", kagi={"base_url": replay.url, "api_key": "kagi-key-0123"}
    )
    result, _ = await _run(settings, SearchQuery("q", time_range="week"))
    assert result["notes"] == ["kagi cannot limit results by date; time_range was not applied"]


KEYED = sorted(name for name, provider in PROVIDERS.items() if provider.needs_key)
ECHOES = [
    # Every field any adapter reads an explanation or a result from, each echoing the key.
    {
        "error": SECRET,
        "tag": "NO_MORE_CREDITS",
        "detail": {"error": SECRET},
        "success": False,
        "results": [{"title": SECRET, "url": f"https://a.example/{SECRET}", "content": SECRET}],
    },
    {
        "error": [{"code": 1, "msg": SECRET}],
        "errors": [{"code": "VALIDATION", "detail": SECRET}],
        "detail": SECRET,
        "data": [{"t": 0, "title": SECRET, "url": "https://a.example/", "snippet": SECRET}],
        "web": {"results": [{"title": SECRET, "url": "https://b.example/", "description": SECRET}]},
    },
]


@pytest.mark.parametrize("name", KEYED)
@pytest.mark.parametrize("status", [200, 400, 401, 402, 403, 404, 422, 429, 432, 433, 500, 502])
@pytest.mark.parametrize("echo", range(len(ECHOES)))
async def test_no_message_note_or_result_ever_contains_the_key(
    replay: ReplayServer, name: str, status: int, echo: int
) -> None:
    for path in ("/search", "/res/v1/web/search", "/v2/search", "/v1/search"):
        replay.set(path, Reply(status, ECHOES[echo]))
    settings = _settings(providers=name, **{name: {"base_url": replay.url, "api_key": SECRET}})
    try:
        shown: object = (await _run(settings))[0]
    except SearchFailure as failure:
        shown = failure.message
    assert SECRET not in str(shown)
    assert replay.requests, "the provider was never asked"
