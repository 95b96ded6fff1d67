"""Versioned schema migrations, applied in order and recorded in ``PRAGMA user_version``."""

from __future__ import annotations

import sqlite3

#: Each entry upgrades the schema from version ``i`` to ``i + 1``. Append, never edit.
MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE conversations (
        id TEXT PRIMARY KEY,
        title TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
    );
    CREATE TABLE messages (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
        turn_id TEXT NOT NULL,
        role TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
        text TEXT NOT NULL,
        reasoning TEXT NOT NULL DEFAULT '',
        events TEXT NOT NULL DEFAULT '[]',
        citations TEXT NOT NULL DEFAULT '[]',
        exchanges TEXT NOT NULL DEFAULT '[]',
        created_at TEXT NOT NULL,
        UNIQUE (turn_id, role)
    );
    CREATE INDEX messages_by_conversation ON messages(conversation_id, id);
    CREATE INDEX conversations_by_update ON conversations(updated_at);
    -- Only what the user and the model wrote is indexed: never web text (which lives in
    -- events and exchanges).
    CREATE VIRTUAL TABLE messages_fts USING fts5(
        text, content='messages', content_rowid='id', tokenize='unicode61'
    );
    CREATE TRIGGER messages_ai AFTER INSERT ON messages BEGIN
        INSERT INTO messages_fts(rowid, text) VALUES (new.id, new.text);
    END;
    CREATE TRIGGER messages_ad AFTER DELETE ON messages BEGIN
        INSERT INTO messages_fts(messages_fts, rowid, text) VALUES ('delete', old.id, old.text);
    END;
    CREATE TRIGGER messages_au AFTER UPDATE OF text ON messages BEGIN
        INSERT INTO messages_fts(messages_fts, rowid, text) VALUES ('delete', old.id, old.text);
        INSERT INTO messages_fts(rowid, text) VALUES (new.id, new.text);
    END;
    """,
    # 2: what left the device during each answer, and where a conversation's URLs came from.
    """
    ALTER TABLE messages ADD COLUMN receipt TEXT;
    CREATE TABLE provenance (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
        url TEXT NOT NULL,
        origin TEXT NOT NULL,
        label TEXT NOT NULL,
        hop INTEGER NOT NULL
    );
    CREATE INDEX provenance_by_conversation ON provenance(conversation_id, id);
    CREATE INDEX messages_by_time ON messages(role, created_at);
    """,
    # 3: search folds accents both ways ("cafe" finds "café"), also letters with several
    # marks ("pho" finds "phở"); the index is rebuilt from the messages it covers.
    """
    DROP TABLE messages_fts;
    CREATE VIRTUAL TABLE messages_fts USING fts5(
        text, content='messages', content_rowid='id', tokenize='unicode61 remove_diacritics 2'
    );
    INSERT INTO messages_fts(messages_fts) VALUES ('rebuild');
    """,
)


def migrate(connection: sqlite3.Connection) -> int:
    """Bring the database to the newest schema; returns the resulting version."""
    (version,) = connection.execute("PRAGMA user_version").fetchone()
    if version > len(MIGRATIONS):
        raise RuntimeError(
            f"the history database has schema version {version}, newer than this Spyglass "
            f"knows ({len(MIGRATIONS)}); upgrade Spyglass or move the database aside"
        )
    for index in range(version, len(MIGRATIONS)):
        with connection:
            connection.executescript(
                "BEGIN;" + MIGRATIONS[index] + f"PRAGMA user_version = {index + 1};"
            )
    return len(MIGRATIONS)
