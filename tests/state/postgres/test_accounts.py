"""The accounts store's runner on PostgreSQL: a server that stops answering."""

from __future__ import annotations

import asyncio
import os
import signal
import time

import pytest

from spyglass.accounts.roles import Role
from spyglass.accounts.store import LOGIN, LOGIN_LINK_SECONDS, AccountStore
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


def _waiting_on_a_lock(database_url: str) -> int:
    import psycopg

    name = database_url.rsplit("/", 1)[1]
    with psycopg.connect(database_url, autocommit=True) as admin:
        row = admin.execute(
            b"SELECT count(*) FROM pg_stat_activity WHERE datname = %s "
            b"AND wait_event_type = 'Lock'",
            (name,),
        ).fetchone()
    return int(row[0]) if row else 0


async def test_a_login_link_redeemed_by_two_processes_at_once_signs_in_only_one(
    database_url: str,
) -> None:
    import psycopg

    upgrade(database_url, 5)
    # Two processes: each its own runner, so its own connections to the server.
    one = PostgresRunner(database_url, timeout=5)
    two = PostgresRunner(database_url, timeout=5)
    first, second = AccountStore(one, time.time), AccountStore(two, time.time)
    sam = await first.create("sam", Role.MEMBER)
    code = await first.issue(sam.id, LOGIN, LOGIN_LINK_SECONDS)
    # A third connection holds the link's row, so both redemptions reach the server and
    # wait at the same point; then it lets them go together.
    holder = psycopg.connect(database_url)
    holder.execute(b"SELECT 1 FROM account_credentials WHERE kind = %s FOR UPDATE", (LOGIN,))
    redeemed = asyncio.gather(
        first.resolve(LOGIN, code, consume=True), second.resolve(LOGIN, code, consume=True)
    )
    task = asyncio.ensure_future(redeemed)
    deadline = time.monotonic() + 20
    while _waiting_on_a_lock(database_url) < 2 and not task.done():
        assert time.monotonic() < deadline, "the redemptions never reached the server"
        await asyncio.sleep(0.01)
    holder.commit()
    holder.close()
    try:
        results = await asyncio.wait_for(task, 30)
    finally:
        one.close()
        two.close()
    assert [r.id for r in results if r is not None] == [sam.id]
