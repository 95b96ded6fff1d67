"""Schema migrations are versioned from the first one."""

from __future__ import annotations

import sqlite3

from spyglass.history.migrations import MIGRATIONS, migrate


def test_a_fresh_database_reaches_the_newest_version_with_fts5() -> None:
    db = sqlite3.connect(":memory:", isolation_level=None)
    assert migrate(db) == len(MIGRATIONS)
    assert db.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
    tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
    assert {"conversations", "messages", "messages_fts"} <= tables


def test_migrating_twice_changes_nothing() -> None:
    db = sqlite3.connect(":memory:", isolation_level=None)
    migrate(db)
    before = db.execute("SELECT sql FROM sqlite_master ORDER BY name").fetchall()
    migrate(db)
    assert db.execute("SELECT sql FROM sqlite_master ORDER BY name").fetchall() == before
