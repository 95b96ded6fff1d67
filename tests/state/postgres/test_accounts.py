"""The accounts store's runner on PostgreSQL: a server that stops answering."""

from __future__ import annotations

import asyncio
import os
import signal
import time

import pytest

from spyglass.accounts.roles import Role
from spyglass.accounts.store import AccountStore
from spyglass.errors import StoreUnavailable
from spyglass.state.postgres import upgrade
from spyglass.state.postgres.accounts import PostgresRunner
from tests.support.state_servers import client_backends


async def test_a_change_the_server_never_answers_fails_closed_and_is_not_made_later(
    database_url: str,
) -> None:
    upgrade(database_url, 5)
    runner = PostgresRunner(database_url, timeout=5, statement_seconds=0.5)
    store = AccountStore(runner, time.time)
    await store.create("sam", Role.MEMBER)  # the worker thread's connection is made
    pids = client_backends(database_url)
    # The server processes behind the runner stop: the change is sent and never answered,
    # and the worker thread waits on a socket where nothing arrives.
    for pid in pids:
        os.kill(pid, signal.SIGSTOP)
    try:
        with pytest.raises(StoreUnavailable, match=r"did not answer within 0\.5 s"):
            await asyncio.wait_for(store.create("ada", Role.MEMBER), 30)
    finally:
        for pid in pids:
            os.kill(pid, signal.SIGCONT)
    # The next change goes through on a fresh connection, and the abandoned one was never
    # made: the caller was told it failed, so it must not happen behind their back.
    await asyncio.wait_for(store.create("bob", Role.MEMBER), 30)
    assert await store.find("bob") is not None
    assert await store.find("ada") is None
    runner.close()
