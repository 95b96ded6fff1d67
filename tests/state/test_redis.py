"""Redis down: the executor fails closed, and the stores reconnect when it is back."""

from __future__ import annotations

import asyncio

import pytest

from spyglass.core.outcome import Code
from spyglass.errors import StoreUnavailable
from spyglass.runtime import Runtime
from spyglass.state.redis import (
    MAX_CONNECTIONS,
    RedisConfirmationStore,
    RedisSessions,
    RedisState,
)
from tests.support.service import Clock
from tests.support.state_servers import RedisServer, free_port


async def test_an_unreachable_redis_is_reported_as_store_unavailable() -> None:
    state = RedisState(f"redis://127.0.0.1:{free_port()}/0", timeout=1, clock=Clock())
    with pytest.raises(StoreUnavailable) as caught:
        await RedisSessions(state).create()
    assert caught.value.store == "redis"
    await state.aclose()


async def test_a_call_needing_approval_fails_closed_when_redis_is_down(
    service_runtime: Runtime,
) -> None:
    state = RedisState(f"redis://127.0.0.1:{free_port()}/0", timeout=1, clock=Clock())
    service_runtime.executor.confirmations = RedisConfirmationStore(state)
    service_runtime.policy.set("web_access_enabled", True)
    asked = await service_runtime.executor.ainvoke(
        "web.search", None, {"query": "otters"}, channel="test"
    )
    approved = await service_runtime.executor.ainvoke(
        "web.search", None, {"query": "otters"}, channel="test", confirmation_token="forged"
    )
    denied = await service_runtime.executor.adeny("forged", channel="test")
    for outcome in (asked, approved, denied):
        assert outcome.error is not None and outcome.error.code == Code.STORE_UNAVAILABLE
        assert outcome.error.retryable is True
        assert "did not run" in outcome.error.message
    assert asked.pending_confirmation is None
    await state.aclose()


async def test_the_store_reconnects_by_itself_after_redis_restarts(
    redis_server: RedisServer,
) -> None:
    state = RedisState(redis_server.url, timeout=1, clock=Clock())
    sessions = RedisSessions(state)
    assert await state.health() == {"status": "ok"}
    redis_server.stop()
    try:
        with pytest.raises(StoreUnavailable):
            await sessions.create()
    finally:
        redis_server.start()
    session_id = await sessions.create()
    assert await sessions.get(session_id) is not None
    await state.aclose()


async def test_more_calls_at_once_than_connections_wait_for_one_instead_of_failing(
    redis_url: str,
) -> None:
    state = RedisState(redis_url, timeout=2.0, clock=Clock(1000.0))
    sessions = RedisSessions(state)
    try:
        made = await asyncio.wait_for(
            asyncio.gather(*(sessions.create() for _ in range(3 * MAX_CONNECTIONS))), 60
        )
        assert len(set(made)) == 3 * MAX_CONNECTIONS
    finally:
        await state.aclose()


async def test_a_token_is_kept_and_taken_by_scripts_redis_has_forgotten(redis_url: str) -> None:
    import redis as sync_redis

    from spyglass.core.confirmation import Binding, PendingRecord, canonical_json

    clock = Clock(1000.0)
    state = RedisState(redis_url, timeout=2.0, clock=clock)
    tokens = RedisConfirmationStore(state)
    binding = Binding("web.search", 1, canonical_json({"query": "q"}), None)
    try:
        for number in range(2):
            # As after a restart of Redis: no script is cached; each is sent whole once.
            admin = sync_redis.Redis.from_url(redis_url)
            admin.script_flush()
            admin.close()
            record = PendingRecord(f"token-{number}", binding, f"call-{number}", 1100.0)
            await tokens.put(record)
            taken = await tokens.take(record.token)
            assert taken is not None and taken.invocation_id == record.invocation_id
            assert await tokens.take(record.token) is None  # exactly once
    finally:
        await state.aclose()
