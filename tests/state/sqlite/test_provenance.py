"""Provenance sources in the history database (SQLite or PostgreSQL): they outlive a restart,
and go with their conversation."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

from spyglass.history.provenance import provenance_store
from spyglass.privacy.provenance import Source
from spyglass.state.postgres import PostgresHistory, PostgresProvenanceStore, upgrade
from spyglass.state.sqlite.history import SQLiteHistory, ThreadedHistory
from spyglass.state.sqlite.provenance import SQLiteProvenanceStore

RESULT = Source("https://zoo.example/zebra", "search", "result 1 of your search 'zebras'")
LINK = Source("https://zoo.example/okapi", "link", "a link on zoo.example/zebra", 1)


async def test_sources_survive_reopening_the_database(tmp_path: Path) -> None:
    history = ThreadedHistory(SQLiteHistory(tmp_path / "h.db", retention_days=30))
    await history.add_user("c1", "t1", "zebras?", title="zebras?")
    store = provenance_store(history)
    assert isinstance(store, SQLiteProvenanceStore)
    await store.add("c1", [RESULT, LINK])
    await history.close()
    reopened = SQLiteHistory(tmp_path / "h.db", retention_days=30)
    assert await SQLiteProvenanceStore(reopened.path).sources("c1") == [RESULT, LINK]
    assert await SQLiteProvenanceStore(reopened.path).sources("other") == []
    reopened.close()


async def test_deleting_a_conversation_deletes_its_sources(tmp_path: Path) -> None:
    history = SQLiteHistory(tmp_path / "h.db", retention_days=30)
    history.add_user("c1", "t1", "zebras?", title="zebras?")
    store = provenance_store(history)
    assert isinstance(store, SQLiteProvenanceStore)
    await store.add("c1", [RESULT])
    assert history.delete("c1")
    assert await store.sources("c1") == []
    await store.add("c1", [RESULT])  # the conversation is gone: nothing to attach them to
    assert await store.sources("c1") == []
    history.close()


async def test_the_sqlite_store_works_off_the_event_loop(tmp_path: Path) -> None:
    history = SQLiteHistory(tmp_path / "h.db", retention_days=30)
    history.add_user("c1", "t1", "zebras?", title="zebras?")
    store = SQLiteProvenanceStore(history.path)
    loop_thread = threading.get_ident()
    seen: list[int] = []
    add_now = store.add_now

    def spy(conversation_id: str, sources: list[Source]) -> None:
        seen.append(threading.get_ident())
        add_now(conversation_id, sources)

    store.add_now = spy  # type: ignore[method-assign]
    await asyncio.gather(store.add("c1", [RESULT]), store.add("c1", [LINK]))
    assert seen and loop_thread not in seen
    assert sorted(s.url for s in await store.sources("c1")) == sorted([RESULT.url, LINK.url])
    history.close()


async def test_the_sqlite_store_commits_with_the_durability_history_has(tmp_path: Path) -> None:
    # Left at SQLite's default (FULL), every search's sources cost a disk flush (about a
    # millisecond and a half) on the turn's path; history itself syncs at checkpoints only.
    history = SQLiteHistory(tmp_path / "h.db", retention_days=30)
    history.add_user("c1", "t1", "zebras?", title="zebras?")
    store = SQLiteProvenanceStore(history.path)
    await store.add("c1", [RESULT])
    with store._connect() as db, history._lock:
        mine = db.execute("PRAGMA synchronous").fetchone()[0]
        theirs = history._db.execute("PRAGMA synchronous").fetchone()[0]
    assert mine == theirs == 1  # NORMAL
    store.close()
    history.close()


async def test_postgresql_keeps_sources_with_their_conversation(database_url: str) -> None:
    upgrade(database_url, 5)
    history = PostgresHistory(database_url, retention_days=30, timeout=5)
    store = provenance_store(history)
    assert isinstance(store, PostgresProvenanceStore)
    await history.add_user("c1", "t1", "zebras?", title="zebras?")
    await store.add("c1", [RESULT, LINK])
    await store.add("c1", [])
    assert await store.sources("c1") == [RESULT, LINK]
    assert await store.sources("other") == []
    assert await history.delete("c1")
    assert await store.sources("c1") == []
    await store.add("c1", [RESULT])  # deleted while the turn ran: not kept
    assert await store.sources("c1") == []
    await history.close()
