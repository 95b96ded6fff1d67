"""The turn's page cache: by turn and URL only, bounded in size and life, on every backend."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from spyglass.state.pages import (
    TOTAL_ENTRIES,
    InMemoryPageCache,
    PageCache,
    RedisPageCache,
    SQLitePageCache,
    cache_key,
)
from tests.support.service import Clock

ENTRY = 1000
TTL = 600.0


@pytest.fixture(params=["memory", "sqlite", "redis"])
async def cache(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Any]:
    clock = Clock(1000.0)
    handle: Any = None
    store: PageCache
    if request.param == "memory":
        store = InMemoryPageCache(max_entry_bytes=ENTRY, ttl_seconds=TTL, clock=clock)
    elif request.param == "sqlite":
        from spyglass.state.sqlite.statefile import StateDB

        handle = StateDB(tmp_path / "state.db", clock)
        store = SQLitePageCache(handle, max_entry_bytes=ENTRY, ttl_seconds=TTL)
    else:
        from spyglass.state.redis import RedisState

        handle = RedisState(request.getfixturevalue("redis_url"), timeout=2.0, clock=clock)
        store = RedisPageCache(handle, max_entry_bytes=ENTRY, ttl_seconds=TTL)
    yield request.param, store, clock
    if handle is not None:
        closed = handle.aclose() if hasattr(handle, "aclose") else handle.close()
        if closed is not None:
            await closed


async def test_a_page_is_found_by_its_turn_and_url_only(cache: Any) -> None:
    _, store, _ = cache
    await store.put("c1/t1", "https://example.org/a", b"page a")
    assert await store.get("c1/t1", "https://example.org/a") == b"page a"
    assert await store.get("c1/t2", "https://example.org/a") is None
    assert await store.get("c2/t1", "https://example.org/a") is None
    assert await store.get("c1/t1", "https://example.org/b") is None


async def test_a_page_over_the_entry_bound_is_not_kept(cache: Any) -> None:
    _, store, _ = cache
    await store.put("c1/t1", "https://example.org/big", b"x" * (ENTRY + 1))
    await store.put("c1/t1", "https://example.org/fits", b"x" * ENTRY)
    assert await store.get("c1/t1", "https://example.org/big") is None
    assert await store.get("c1/t1", "https://example.org/fits") == b"x" * ENTRY


async def test_a_page_is_gone_after_its_time(cache: Any) -> None:
    name, store, clock = cache
    if name == "redis":
        short = RedisPageCache(store.state, max_entry_bytes=ENTRY, ttl_seconds=0.05)
        await short.put("c1/t1", "https://example.org/a", b"page")
        deadline = time.monotonic() + 5
        while await short.get("c1/t1", "https://example.org/a") is not None:
            assert time.monotonic() < deadline, "the entry never expired"
            await asyncio.sleep(0.01)  # polling Redis's own expiry, with a deadline
        return
    await store.put("c1/t1", "https://example.org/a", b"page")
    clock.now += TTL - 1
    assert await store.get("c1/t1", "https://example.org/a") == b"page"
    clock.now += 2
    assert await store.get("c1/t1", "https://example.org/a") is None


async def test_the_embedded_caches_keep_their_total_under_a_bound(cache: Any) -> None:
    name, store, clock = cache
    if name == "redis":
        pytest.skip("Redis bounds each entry and its life; its memory is Redis's to bound")
    for number in range(TOTAL_ENTRIES * 2):
        clock.now += 1
        await store.put("c1/t1", f"https://example.org/{number}", b"x" * ENTRY)
    kept = [
        number
        for number in range(TOTAL_ENTRIES * 2)
        if await store.get("c1/t1", f"https://example.org/{number}") is not None
    ]
    assert len(kept) == TOTAL_ENTRIES
    assert kept == list(range(TOTAL_ENTRIES, TOTAL_ENTRIES * 2))  # the newest stay


def test_the_key_shows_neither_the_url_nor_the_conversation() -> None:
    key = cache_key("conversation-1/turn-1", "https://example.org/secret")
    assert "example" not in key and "conversation" not in key and len(key) == 64
