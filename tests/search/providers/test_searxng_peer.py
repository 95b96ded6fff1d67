"""The SearXNG adapter against a real SearXNG (integration tier; CI provides the peer).

The peer runs from its own virtualenv with engines that call a loopback fake upstream, one
per behaviour. Engines are picked per test with SearXNG's own ``!name`` syntax in the query.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from typing import Any

import pytest

from spyglass.core.policy import WEB_ACCESS
from spyglass.paths import Paths
from spyglass.runtime import build_runtime
from spyglass.search.dispatch import search
from spyglass.search.model import SearchFailure, SearchQuery
from spyglass.search.providers import PROVIDERS
from spyglass.settings import SearchSettings
from tests.search.searxng_peer import PYTHON_VARIABLE, FakeUpstream, Peer, start_peer

pytestmark = pytest.mark.searxng


def _python() -> str:
    python = os.environ.get(PYTHON_VARIABLE)
    if not python:
        pytest.skip(
            f"{PYTHON_VARIABLE} is not set: run `python3 scripts/dev.py test` (it installs the "
            "SearXNG peer into .venv-searxng) or point it at that venv's python"
        )
    return python


@pytest.fixture(scope="session")
def upstream() -> Iterator[FakeUpstream]:
    server = FakeUpstream()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def peer(upstream: FakeUpstream) -> Iterator[Peer]:
    started = start_peer(_python(), upstream.url)
    yield started
    started.stop()


@pytest.fixture(scope="session")
def peer_without_json(upstream: FakeUpstream) -> Iterator[Peer]:
    started = start_peer(_python(), upstream.url, formats=("html",))
    yield started
    started.stop()


async def _search(peer: Peer, query: SearchQuery) -> dict[str, Any]:
    settings = SearchSettings.model_validate(
        {"providers": "searxng", "searxng": {"base_url": peer.url}, "timeout_seconds": 10}
    )
    return await search(
        query,
        settings,
        PROVIDERS,
        capability="web.search",
        invocation_id="peer",
        report=lambda name: None,
    )


async def _failure(peer: Peer, text: str) -> SearchFailure:
    with pytest.raises(SearchFailure) as caught:
        await _search(peer, SearchQuery(text))
    return caught.value


async def test_a_working_engine_gives_clean_results(peer: Peer) -> None:
    result = await _search(peer, SearchQuery("!ok hello world", count=2))
    assert result["provider"] == "searxng" and result["result_count"] == 2
    assert result["results"][0] == {
        "title": "Result 1 for hello world",
        "url": "https://ok.example/1?q=hello%20world",
        "snippet": "snippet 1",
    }
    assert "partial" not in result


@pytest.mark.parametrize(
    ("engine", "code", "reason"),
    [
        ("e500", "SEARCH_PROVIDER_UNAVAILABLE", "http error"),
        ("e429", "SEARCH_RATE_LIMITED", "too many requests"),
        ("e403", "SEARCH_RATE_LIMITED", "access denied"),
        ("slow", "SEARCH_PROVIDER_UNAVAILABLE", "timeout"),
        ("badjson", "SEARCH_PROVIDER_UNAVAILABLE", "parsing error"),
    ],
)
async def test_a_failing_engine_is_an_error_naming_it_never_an_empty_result(
    peer: Peer, engine: str, code: str, reason: str
) -> None:
    failure = await _failure(peer, f"!{engine} hello")
    assert failure.code == code and failure.retryable
    assert f"{engine} ({reason})" in failure.message


async def test_a_good_and_a_failing_engine_give_partial_results_with_a_note(peer: Peer) -> None:
    result = await _search(peer, SearchQuery("!ok !e500 hello"))
    assert result["result_count"] == 3 and result["partial"] is True
    assert result["notes"] == ["searxng engines that did not answer: e500 (http error)"]


async def test_hostile_engine_output_comes_out_as_plain_text(peer: Peer) -> None:
    result = await _search(peer, SearchQuery("!hostile hello"))
    assert result["results"] == [
        {"title": "Bold & title", "url": "https://hostile.example/page", "snippet": "Click here"}
    ]


async def test_engines_that_cannot_filter_by_date_are_skipped_and_noted(peer: Peer) -> None:
    result = await _search(peer, SearchQuery("!ok hello", time_range="day"))
    assert result["results"] == []
    assert "time_range" in result["notes"][0]


async def test_excluded_domains_are_filtered_after_searxng_answers(peer: Peer) -> None:
    result = await _search(peer, SearchQuery("!ok hello", exclude_domains=("ok.example",)))
    assert result["results"] == []


async def test_searxng_without_json_output_says_to_enable_it(peer_without_json: Peer) -> None:
    failure = await _failure(peer_without_json, "!ok hello")
    assert failure.code == "SEARCH_PROVIDER_REJECTED" and not failure.retryable
    assert "search.formats" in failure.message and "settings.yml" in failure.message


async def test_web_search_through_the_executor_against_the_peer(paths: Paths, peer: Peer) -> None:
    runtime = build_runtime(
        paths, overrides={"search.providers": "searxng", "search.searxng.base_url": peer.url}
    )
    runtime.policy.set(WEB_ACCESS, True)
    arguments = {"query": "!ok executor", "count": 3}
    pending = await runtime.executor.ainvoke("web.search", 1, arguments, channel="cli")
    assert pending.pending_confirmation is not None
    outcome = await runtime.executor.ainvoke(
        "web.search",
        1,
        arguments,
        channel="cli",
        confirmation_token=pending.pending_confirmation.token,
    )
    assert outcome.status == "ok" and outcome.result is not None
    assert [r["title"] for r in outcome.result["results"]] == [
        f"Result {n} for executor" for n in (1, 2, 3)
    ]
    event = json.loads(runtime.paths.audit_file.read_text().splitlines()[-1])
    assert event["provider"] == "searxng" and event["outcome"] == "ok"
