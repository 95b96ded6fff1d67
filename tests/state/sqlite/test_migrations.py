"""Schema migrations are versioned from the first one, each table defined once."""

from __future__ import annotations

import re
import sqlite3

import pytest

from spyglass.errors import StorageError
from spyglass.state.sqlite.migrations import HISTORY_MIGRATIONS, STATE_MIGRATIONS, migrate


def test_a_fresh_history_database_reaches_the_newest_version_with_fts5() -> None:
    db = sqlite3.connect(":memory:", isolation_level=None)
    assert migrate(db, HISTORY_MIGRATIONS, what="history") == len(HISTORY_MIGRATIONS)
    assert db.execute("PRAGMA user_version").fetchone()[0] == len(HISTORY_MIGRATIONS)
    tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
    assert {"conversations", "messages", "messages_fts"} <= tables


@pytest.mark.parametrize("migrations", [STATE_MIGRATIONS, HISTORY_MIGRATIONS])
def test_migrating_twice_changes_nothing(migrations: tuple[str, ...]) -> None:
    db = sqlite3.connect(":memory:", isolation_level=None)
    migrate(db, migrations, what="the file")
    before = db.execute("SELECT sql FROM sqlite_master ORDER BY name").fetchall()
    migrate(db, migrations, what="the file")
    assert db.execute("SELECT sql FROM sqlite_master ORDER BY name").fetchall() == before


def test_a_file_newer_than_this_spyglass_is_refused_by_name() -> None:
    db = sqlite3.connect(":memory:", isolation_level=None)
    db.execute(f"PRAGMA user_version = {len(STATE_MIGRATIONS) + 1}")
    with pytest.raises(StorageError, match="the state file has schema version"):
        migrate(db, STATE_MIGRATIONS, what="the state file")


def test_every_table_of_the_embedded_backend_is_created_once() -> None:
    created = re.findall(r"CREATE TABLE (\w+)", "".join(STATE_MIGRATIONS + HISTORY_MIGRATIONS))
    assert len(created) == len(set(created))
