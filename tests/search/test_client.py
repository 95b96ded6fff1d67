"""Asking a search provider: deadline, 2 MiB bound, network failures, redirects refused."""

from __future__ import annotations

import socket
import time

import pytest

from spyglass.search.client import MAX_BODY_BYTES, ask
from spyglass.search.model import SearchFailure, SearchQuery
from spyglass.search.provider import Endpoint
from spyglass.search.providers import PROVIDERS
from tests.search.replay import SECRET, ReplayServer, Reply
from tests.search.replay import ask as ask_replay


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _results(size: int) -> bytes:
    filler = "x" * size
    return ('{"results": [], "pad": "' + filler + '"}').encode()


async def test_a_body_over_2_mib_is_refused_while_streaming(replay: ReplayServer) -> None:
    replay.set("/search", Reply(body=_results(MAX_BODY_BYTES + 10)))
    with pytest.raises(SearchFailure) as caught:
        await ask_replay("searxng", replay)
    assert caught.value.code == "SEARCH_INVALID_OUTPUT" and "2 MiB" in caught.value.message


async def test_the_bound_counts_decompressed_bytes(replay: ReplayServer) -> None:
    # A few KiB of gzip that inflate past the bound.
    replay.set("/search", Reply(body=_results(MAX_BODY_BYTES * 2), gzip=True))
    with pytest.raises(SearchFailure) as caught:
        await ask_replay("searxng", replay)
    assert caught.value.code == "SEARCH_INVALID_OUTPUT"


async def test_a_body_just_under_the_bound_is_read(replay: ReplayServer) -> None:
    replay.set("/search", Reply(body=_results(MAX_BODY_BYTES - 100)))
    page = await ask_replay("searxng", replay)
    assert page.results == []


async def test_a_provider_that_never_answers_times_out_as_unavailable(
    replay: ReplayServer,
) -> None:
    replay.set("/search", Reply(stall=True))
    started = time.monotonic()
    with pytest.raises(SearchFailure) as caught:
        await ask_replay("searxng", replay, timeout=0.3)
    assert time.monotonic() - started < 3
    assert caught.value.code == "SEARCH_PROVIDER_UNAVAILABLE" and caught.value.retryable
    assert "0.3 seconds" in caught.value.message


async def test_connection_refused_names_the_base_url_setting_but_not_the_url() -> None:
    url = f"http://127.0.0.1:{_free_port()}"
    with pytest.raises(SearchFailure) as caught:
        await ask(PROVIDERS["brave"], Endpoint(url, SECRET), SearchQuery("q"), timeout=2)
    assert caught.value.code == "SEARCH_PROVIDER_UNAVAILABLE" and caught.value.retryable
    assert "search.brave.base_url" in caught.value.message
    assert url not in caught.value.message and SECRET not in caught.value.message


async def test_redirects_are_not_followed(replay: ReplayServer) -> None:
    replay.set("/search", Reply(301, b"", {"Location": "http://elsewhere.example/"}))
    with pytest.raises(SearchFailure) as caught:
        await ask_replay("searxng", replay)
    assert caught.value.code == "SEARCH_PROVIDER_REJECTED"
    assert "search.searxng.base_url" in caught.value.message
    assert len(replay.requests) == 1
