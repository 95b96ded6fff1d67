"""Every backend of a store interface, as parametrised fixtures for the contract tests.

``memory`` is the in-process store, ``sqlite`` the embedded one, ``redis`` and ``postgresql``
the shared ones on real servers (see :mod:`tests.support.state_servers`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from spyglass.conversation.pending import InMemoryPendingTurnStore, PendingTurnStore
from spyglass.core.confirmation import ConfirmationStore, InMemoryConfirmationStore
from spyglass.core.grants import GrantStore, InMemoryGrants
from spyglass.state.sessions import LoginCodes, LoginCodeStore, Sessions, SessionStore
from tests.support.service import Clock


@dataclass
class LiveStores:
    """One backend's live-state stores, sharing one clock."""

    name: str
    clock: Clock
    confirmations: ConfirmationStore
    pending: PendingTurnStore
    sessions: SessionStore
    login_codes: LoginCodeStore
    #: "Allow for this conversation" grants.
    grants: GrantStore | None = None
    #: Builds a second, independent set on the same storage: another process's view.
    other: Any = None


LIVE_BACKENDS = ("memory", "sqlite", "redis")


def _build(name: str, clock: Clock, where: Any, lease: float = 30.0) -> tuple[LiveStores, Any]:
    if name == "memory":
        confirmations = InMemoryConfirmationStore(clock)
        stores = LiveStores(
            name,
            clock,
            confirmations,
            InMemoryPendingTurnStore(clock, confirmations),
            Sessions(clock),
            LoginCodes(clock),
            InMemoryGrants(clock),
        )
        return stores, None
    if name == "sqlite":
        from spyglass.state.grants import SQLiteGrants
        from spyglass.state.sqlite import statefile as sqlite

        db = sqlite.StateDB(Path(where), clock)
        stores = LiveStores(
            name,
            clock,
            sqlite.SQLiteConfirmationStore(db),
            sqlite.SQLitePendingTurnStore(db, lease),
            sqlite.SQLiteSessions(db),
            sqlite.SQLiteLoginCodes(db),
            SQLiteGrants(db),
        )
        return stores, db
    from spyglass.state import redis
    from spyglass.state.grants import RedisGrants

    server = redis.RedisState(where, timeout=2.0, clock=clock)
    stores = LiveStores(
        name,
        clock,
        redis.RedisConfirmationStore(server),
        redis.RedisPendingTurnStore(server, lease),
        redis.RedisSessions(server),
        redis.RedisLoginCodes(server),
        RedisGrants(server),
    )
    return stores, server


async def _close(handle: Any) -> None:
    if handle is None:
        return
    result = handle.aclose() if hasattr(handle, "aclose") else handle.close()
    if result is not None:
        await result


@pytest.fixture(params=LIVE_BACKENDS)
async def live(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[LiveStores]:
    """The live-state stores of each backend; ``live.other(lease)`` is a second process's."""
    name = request.param
    clock = Clock(1000.0)
    where: Any = tmp_path / "state.db"
    if name == "redis":
        where = request.getfixturevalue("redis_url")
    handles: list[Any] = []
    stores, handle = _build(name, clock, where)
    handles.append(handle)

    def other(lease: float = 30.0) -> LiveStores:
        if name == "memory":
            pytest.skip("an in-process store is not shared with another process")
        more, extra = _build(name, clock, where, lease)
        handles.append(extra)
        return more

    stores.other = other
    yield stores
    for item in handles:
        await _close(item)
