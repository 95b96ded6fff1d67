"""PostgreSQL: the append-only audit table, the policy switch and the migrations."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import psycopg
import pytest

from spyglass.core.policy import WEB_ACCESS
from spyglass.errors import StoreUnavailable
from spyglass.state.postgres import (
    MIGRATIONS,
    PostgresAudit,
    PostgresHistory,
    PostgresPolicy,
    upgrade,
)
from spyglass.state.postgres.loopconn import LoopConnection
from tests.support.state_servers import PostgresServer, client_backends, free_port

SRC = str(Path(__file__).resolve().parents[2] / "src")


def event(number: int) -> dict[str, object]:
    return {"event_id": f"e{number}", "capability": "web.search", "outcome": "ok"}


def test_audit_events_are_appended_in_order_and_tail_reads_the_newest(database_url: str) -> None:
    upgrade(database_url, 5)
    audit = PostgresAudit(database_url, timeout=5)
    for number in range(5):
        audit.record(event(number))
    assert audit.flush(10)
    assert [e["event_id"] for e in audit.tail(3)] == ["e2", "e3", "e4"]
    assert audit.tail(0) == []
    audit.close()


def test_the_audit_table_refuses_updates_and_deletes(database_url: str) -> None:
    upgrade(database_url, 5)
    audit = PostgresAudit(database_url, timeout=5)
    audit.record(event(1))
    assert audit.flush(10)
    audit.close()
    with psycopg.connect(database_url, autocommit=True) as db:
        for statement in (
            "UPDATE audit_events SET event = '{}'",
            "DELETE FROM audit_events",
            "TRUNCATE audit_events",
        ):
            with pytest.raises(psycopg.errors.RaiseException, match="append-only"):
                db.execute(statement.encode())
        assert db.execute("SELECT count(*) FROM audit_events").fetchone() == (1,)


async def test_an_awaited_audit_event_returns_only_once_it_is_in_the_table(
    database_url: str,
) -> None:
    upgrade(database_url, 5)
    audit = PostgresAudit(database_url, timeout=30)
    await audit.arecord(event(0))
    with (
        psycopg.connect(database_url, autocommit=True) as blocker,
        psycopg.connect(database_url, autocommit=True) as watcher,
    ):
        # Another session holds the table: the writer's INSERT waits for it.
        blocker.execute(b"BEGIN")
        blocker.execute(b"LOCK TABLE audit_events IN EXCLUSIVE MODE")
        writing = asyncio.ensure_future(audit.arecord(event(1)))

        def insert_waits() -> bool:
            row = watcher.execute(
                b"SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                b"AND query LIKE 'INSERT INTO audit_events%'"
            ).fetchone()
            return row == (1,)

        deadline = time.monotonic() + 20
        while not await asyncio.to_thread(insert_waits):
            assert time.monotonic() < deadline, "the audit INSERT never reached the lock"
        assert not writing.done()
        blocker.execute(b"COMMIT")
        await asyncio.wait_for(writing, 20)
        rows = watcher.execute(b"SELECT event->>'event_id' FROM audit_events ORDER BY id")
        assert [r[0] for r in rows.fetchall()] == ["e0", "e1"]
    audit.close()


async def test_an_awaited_audit_event_does_not_hold_up_its_answer_while_postgresql_is_away(
    postgres_server: PostgresServer,
) -> None:
    url = postgres_server.new_database()
    upgrade(url, 5)
    audit = PostgresAudit(url, timeout=1)
    await audit.arecord(event(0))
    postgres_server.stop()
    try:
        # Each answer goes out; its event waits in the queue until PostgreSQL is back.
        await asyncio.wait_for(audit.arecord(event(1)), 20)
        await asyncio.wait_for(audit.arecord(event(2)), 20)
    finally:
        postgres_server.start()
    assert audit.flush(30)
    assert [e["event_id"] for e in audit.tail(5)] == ["e0", "e1", "e2"]
    audit.close()


def test_an_audit_event_with_a_field_outside_the_list_is_refused(database_url: str) -> None:
    audit = PostgresAudit(database_url, timeout=5)
    with pytest.raises(ValueError, match="may not carry"):
        audit.record({"query": "secret words"})


def test_audit_events_recorded_while_postgresql_is_away_are_written_when_it_is_back(
    postgres_server: object, tmp_path: Path
) -> None:
    from tests.support.state_servers import PostgresServer

    assert isinstance(postgres_server, PostgresServer)
    url = postgres_server.new_database()
    upgrade(url, 5)
    audit = PostgresAudit(url, timeout=1)
    postgres_server.stop()
    try:
        audit.record(event(1))
        assert not audit.flush(0.5)
    finally:
        postgres_server.start()
    assert audit.flush(30)
    assert [e["event_id"] for e in audit.tail(5)] == ["e1"]
    audit.close()


def test_the_policy_is_off_until_set_and_read_fresh(database_url: str) -> None:
    upgrade(database_url, 5)
    first, second = (PostgresPolicy(database_url, timeout=5) for _ in range(2))
    assert first.enabled(WEB_ACCESS) is False
    assert first.read() == {WEB_ACCESS: False} | {k: v for k, v in first.read().items()}
    second.set(WEB_ACCESS, True)
    assert first.enabled(WEB_ACCESS) is True  # another process's change, seen at once
    assert first.enabled("some_other_switch") is False
    with pytest.raises(KeyError):
        first.set("not_a_switch", True)
    first.close()
    second.close()


def test_an_unreachable_policy_reads_as_off() -> None:
    policy = PostgresPolicy(f"postgresql://spyglass@127.0.0.1:{free_port()}/none", timeout=1)
    assert policy.enabled(WEB_ACCESS) is False
    assert policy.read()[WEB_ACCESS] is False


def test_migrations_run_once_even_when_processes_start_together(database_url: str) -> None:
    versions: list[int] = []
    threads = [
        threading.Thread(target=lambda: versions.append(upgrade(database_url, 10)))
        for _ in range(4)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert versions == [len(MIGRATIONS)] * 4
    with psycopg.connect(database_url) as db:
        rows = db.execute("SELECT version FROM spyglass_schema ORDER BY version").fetchall()
    assert rows == [(n,) for n in range(1, len(MIGRATIONS) + 1)]


def test_spyglass_db_upgrade_and_audit_tail_use_postgresql(
    database_url: str, redis_url: str, tmp_path: Path
) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SPYGLASS_")}
    env |= {
        "SPYGLASS_HOME": str(tmp_path / "home"),
        "SPYGLASS_STATE__BACKEND": "shared",
        "SPYGLASS_STATE__REDIS_URL": redis_url,
        "SPYGLASS_STATE__DATABASE_URL": database_url,
        "PYTHONPATH": SRC,
    }

    def spyglass(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "spyglass", *args],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )

    upgraded = spyglass("db", "upgrade", "--json")
    assert upgraded.returncode == 0, upgraded.stderr
    assert json.loads(upgraded.stdout) == {
        "backend": "shared",
        "schema_versions": {"postgresql": len(MIGRATIONS)},
    }
    # A refused call (web access is off) is audited, into PostgreSQL, before the CLI exits.
    spyglass("search", "otters", "--yes")
    tail = spyglass("audit", "tail", "--json")
    assert tail.returncode == 0, tail.stderr
    events = json.loads(tail.stdout)
    assert [(e["capability"], e["code"]) for e in events] == [("web.search", "POLICY_DISABLED")]
    assert not (tmp_path / "home" / "audit").exists()


def test_a_policy_table_that_cannot_be_reached_is_every_switch_off_and_says_why() -> None:
    policy = PostgresPolicy(f"postgresql://spyglass@127.0.0.1:{free_port()}/none", timeout=1)
    taken = policy.snapshot()
    assert not any(taken.values.values())
    problem = taken.problem()
    assert problem is not None and problem.code == "STORE_UNAVAILABLE"
    assert "PostgreSQL" in problem.message
    policy.close()


def test_the_policy_table_is_read_in_one_query_with_defaults_for_unset_switches(
    database_url: str,
) -> None:
    upgrade(database_url, 5)
    policy = PostgresPolicy(database_url, timeout=5)
    policy.set(WEB_ACCESS, True)
    taken = policy.snapshot()
    assert dict(taken.values) == {
        WEB_ACCESS: True,
        "web_search_enabled": True,
        "web_fetch_enabled": True,
    }
    assert taken.problem() is None and policy.blocking
    policy.close()


async def test_without_the_unaccent_extension_search_still_folds_common_accents(
    postgres_server: PostgresServer,
) -> None:
    # A role that may create tables but not extensions: the migration falls back to its own
    # table of letters.
    database = postgres_server.new_database()
    name = database.rsplit("/", 1)[1]
    role = "r_" + name
    with psycopg.connect(database, autocommit=True) as db:
        db.execute(f'CREATE ROLE "{role}" LOGIN'.encode())
        db.execute(f'GRANT CONNECT ON DATABASE "{name}" TO "{role}"'.encode())
        db.execute(f'GRANT USAGE, CREATE ON SCHEMA public TO "{role}"'.encode())
    url = database.replace("postgresql://spyglass@", f"postgresql://{role}@")
    upgrade(url, 5)
    with psycopg.connect(database) as db:
        found = db.execute("SELECT 1 FROM pg_extension WHERE extname = 'unaccent'").fetchone()
    assert found is None
    history = PostgresHistory(url, retention_days=30, timeout=5)
    await history.add_user("c1", "t1", "Phở and crêpes at the café in Kraków", title="food")
    for typed in ("cafe", "pho", "crepes krakow", "CAFÉ"):
        assert [c["id"] for c in await history.conversations(typed)] == ["c1"], typed
    await history.close()


def waiting_for_a_lock(watcher: psycopg.Connection[Any], statement: str) -> bool:
    row = watcher.execute(
        b"SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE %s",
        (statement + "%",),
    ).fetchone()
    return row == (1,)


async def test_a_statement_whose_caller_stops_waiting_still_runs_to_its_end(
    database_url: str,
) -> None:
    loop_db = LoopConnection(database_url, timeout=5)
    await loop_db.rows(b"CREATE TABLE counted (n INTEGER)", ())
    with (
        psycopg.connect(database_url, autocommit=True) as blocker,
        psycopg.connect(database_url, autocommit=True) as watcher,
    ):
        blocker.execute(b"BEGIN")
        blocker.execute(b"LOCK TABLE counted IN EXCLUSIVE MODE")
        caller = asyncio.ensure_future(loop_db.rows(b"INSERT INTO counted VALUES (1)", ()))
        deadline = time.monotonic() + 20
        while not await asyncio.to_thread(waiting_for_a_lock, watcher, "INSERT INTO counted"):
            assert time.monotonic() < deadline, "the INSERT never reached the lock"
        caller.cancel()
        with pytest.raises(asyncio.CancelledError):
            await caller
        blocker.execute(b"COMMIT")
    # The same connection goes on once the INSERT has finished: it was neither cut short nor
    # left in the middle of a statement.
    assert await asyncio.wait_for(loop_db.rows(b"SELECT count(*) FROM counted", ()), 20) == [(1,)]
    loop_db.close()


async def test_a_loop_connection_the_server_dropped_is_made_again(database_url: str) -> None:
    loop_db = LoopConnection(database_url, timeout=5)
    [(pid,)] = await loop_db.rows(b"SELECT pg_backend_pid()", ())
    with psycopg.connect(database_url, autocommit=True) as admin:
        admin.execute(b"SELECT pg_terminate_backend(%s)", (pid,))
    [(again,)] = await loop_db.rows(b"SELECT pg_backend_pid()", ())
    assert again != pid
    loop_db.close()


async def test_a_statement_the_server_never_answers_fails_closed_after_its_bound(
    database_url: str,
) -> None:
    loop_db = LoopConnection(database_url, timeout=5, statement_seconds=0.5)
    [(pid,)] = await loop_db.rows(b"SELECT pg_backend_pid()", ())
    # The server process behind this connection stops: it takes the statement and never
    # answers (the kernel still acknowledges every byte, so no socket timeout would notice).
    os.kill(pid, signal.SIGSTOP)
    try:
        with pytest.raises(StoreUnavailable, match=r"did not answer within 0\.5 s"):
            # (psycopg then tries to cancel the statement for up to 5 s before it gives the
            # connection up: the outer deadline only keeps a broken bound from hanging.)
            await asyncio.wait_for(loop_db.rows(b"SELECT 1", ()), 30)
    finally:
        os.kill(pid, signal.SIGCONT)
    # The connection it gave up is replaced by a fresh one.
    [(again,)] = await asyncio.wait_for(loop_db.rows(b"SELECT pg_backend_pid()", ()), 20)
    assert again != pid
    loop_db.close()


async def test_a_history_statement_the_server_never_answers_fails_closed_after_its_bound(
    database_url: str,
) -> None:
    upgrade(database_url, 5)
    history = PostgresHistory(database_url, retention_days=30, timeout=5, statement_seconds=0.5)
    await history.add_user("c1", "t1", "before", title="before")
    pids = client_backends(database_url)
    # The server processes behind the pool's connections stop: the pool's own check of the
    # connection it hands out, a query too, is sent and never answered.
    for pid in pids:
        os.kill(pid, signal.SIGSTOP)
    try:
        with pytest.raises(StoreUnavailable, match=r"did not answer within 0\.5 s"):
            # (psycopg then tries to cancel for up to 5 s before it gives the connection up:
            # the outer deadline only keeps a broken bound from hanging.)
            await asyncio.wait_for(history.exists("c1"), 30)
    finally:
        for pid in pids:
            os.kill(pid, signal.SIGCONT)
    # The pool replaces the connection it gave up; the history answers again and closes.
    assert await asyncio.wait_for(history.exists("c1"), 30)
    assert set(pids) - set(client_backends(database_url))
    await asyncio.wait_for(history.close(), 30)


def test_a_switch_the_server_never_answers_fails_closed_after_its_bound(
    database_url: str,
) -> None:
    upgrade(database_url, 5)
    policy = PostgresPolicy(database_url, timeout=5, statement_seconds=0.5)
    policy.set(WEB_ACCESS, True)
    pids = client_backends(database_url)
    for pid in pids:
        os.kill(pid, signal.SIGSTOP)
    try:
        # A blocking caller (the policy route, the command line) has no event loop to bound
        # it: a timer does.
        with pytest.raises(StoreUnavailable, match=r"did not answer within 0\.5 s"):
            policy.set(WEB_ACCESS, False)
        # The connection it gave up is replaced: a new server process answers. (The stopped
        # one has not made the change; a switch's change is the same made twice, so
        # setting it again is always safe.)
        assert policy.read()[WEB_ACCESS] is True
    finally:
        for pid in pids:
            os.kill(pid, signal.SIGCONT)
    policy.close()


async def save(history: PostgresHistory, turn_id: str, text: str) -> None:
    await history.save_assistant(
        "c1", turn_id, text=text, reasoning="", events=[], citations=[], exchanges=[]
    )


async def test_a_history_save_whose_connection_the_server_dropped_is_tried_once_more(
    database_url: str,
) -> None:
    upgrade(database_url, 5)
    history = PostgresHistory(database_url, retention_days=30, timeout=5)
    try:
        await history.add_user("c1", "t1", "question", title="question")
        with (
            psycopg.connect(database_url, autocommit=True) as blocker,
            psycopg.connect(database_url, autocommit=True) as watcher,
        ):
            # The save waits behind a lock; its connection is then dropped, as a restart does.
            blocker.execute(b"BEGIN")
            blocker.execute(b"LOCK TABLE messages IN EXCLUSIVE MODE")
            saving = asyncio.ensure_future(save(history, "t1", "the answer"))
            deadline = time.monotonic() + 20
            while not await asyncio.to_thread(waiting_for_a_lock, watcher, "WITH c AS (UPDATE"):
                assert time.monotonic() < deadline, "the save never reached the lock"
            watcher.execute(
                b"SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                b"WHERE wait_event_type = 'Lock' AND query LIKE 'WITH c AS (UPDATE%'"
            )
            blocker.execute(b"COMMIT")
            await asyncio.wait_for(saving, 20)
        messages = await history.messages("c1")
        assert [(m["role"], m["text"]) for m in messages] == [
            ("user", "question"),
            ("assistant", "the answer"),
        ]
    finally:
        await asyncio.wait_for(history.close(), 30)


async def test_a_history_save_postgresql_cannot_take_is_queued_and_written_once_it_is_back(
    postgres_server: PostgresServer,
) -> None:
    url = postgres_server.new_database()
    upgrade(url, 5)
    history = PostgresHistory(url, retention_days=30, timeout=1, statement_seconds=1)
    await history.add_user("c1", "t1", "question", title="question")
    await save(history, "t1", "waiting for approval")
    postgres_server.stop()
    try:
        # The answer goes out; its save waits in the queue. A later save of the same turn
        # is written after it, never overtaken by it.
        await asyncio.wait_for(save(history, "t1", "the search left"), 20)
        await asyncio.wait_for(save(history, "t1", "the final answer"), 20)
    finally:
        postgres_server.start()
    assert await asyncio.wait_for(history.flush(), 30)
    messages = await history.messages("c1")
    assert [m["text"] for m in messages] == ["question", "the final answer"]
    await history.close()


def test_an_outage_of_the_policy_table_is_logged_once_not_on_every_read(
    database_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    upgrade(database_url, 5)
    policy = PostgresPolicy(database_url, timeout=5, statement_seconds=0.3)
    policy.set(WEB_ACCESS, True)

    def warnings() -> list[str]:
        return [r.getMessage() for r in caplog.records if "policy cannot be read" in r.getMessage()]

    def outage(reads: int) -> None:
        # A lock held from a second session stands in for a PostgreSQL that does not answer.
        with psycopg.connect(database_url) as holder:
            holder.execute("LOCK TABLE policy IN ACCESS EXCLUSIVE MODE")
            for _ in range(reads):
                assert policy.snapshot().problem() is not None
                assert policy.enabled(WEB_ACCESS) is False
            holder.rollback()

    with caplog.at_level(logging.WARNING, logger="spyglass.state.postgres.policy"):
        outage(3)
        assert len(warnings()) == 1
        assert policy.read()[WEB_ACCESS] is True  # the outage is over ...
        outage(2)
        assert len(warnings()) == 2  # ... and the next one is logged again
    policy.close()


async def test_an_approval_mode_set_in_one_process_is_read_by_another_and_can_be_unset(
    database_url: str,
) -> None:
    upgrade(database_url, 5)
    first, second = (PostgresPolicy(database_url, timeout=5) for _ in range(2))
    try:
        assert first.approvals() == {}
        assert second.set_approval("fetch", "flagged") == {"fetch": "flagged"}
        second.set_approval("search", "each")
        assert first.approvals() == {"fetch": "flagged", "search": "each"}
        assert (await first.asnapshot()).approvals == {"fetch": "flagged", "search": "each"}
        assert "approvals.fetch" not in first.read()
        assert first.set_approval("fetch", None) == {"search": "each"}
        with pytest.raises(KeyError, match="each or flagged"):
            first.set_approval("fetch", "sometimes")
    finally:
        first.close()
        second.close()
