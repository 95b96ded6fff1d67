"""The SQLite schemas, each table defined once: versioned migrations applied in order and
recorded in ``PRAGMA user_version``.

The embedded backend keeps two files, each with its own list: the state file (``state.db``:
tokens, paused turns, sessions, login codes, pages and the household's accounts) and the
history file (``spyglass.db``: conversations, messages, receipts and provenance). Append,
never edit: installs depend on the exact SQL text.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from spyglass.errors import StorageError

#: The state file (``state.db``). Each entry upgrades the schema from version ``i`` to
#: ``i + 1``. Append, never edit.
STATE_MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE confirmations (
        digest TEXT PRIMARY KEY, record TEXT NOT NULL, expires_at REAL NOT NULL
    );
    CREATE TABLE paused_turns (
        digest TEXT PRIMARY KEY,
        conversation_id TEXT NOT NULL,
        state TEXT NOT NULL,
        expires_at REAL NOT NULL,
        lease_until REAL NOT NULL DEFAULT 0,
        owner TEXT NOT NULL DEFAULT ''
    );
    CREATE TABLE sessions (digest TEXT PRIMARY KEY, csrf TEXT NOT NULL, expires_at REAL NOT NULL);
    CREATE TABLE login_codes (digest TEXT PRIMARY KEY, expires_at REAL NOT NULL);
    """,
    # 2: household accounts (spyglass.accounts): people, their credentials, keys, daily
    # counts, which conversations are whose, and calls waiting for an owner or a parent.
    """
    CREATE TABLE accounts (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        role TEXT NOT NULL,
        disabled INTEGER NOT NULL DEFAULT 0,
        parent INTEGER NOT NULL DEFAULT 0,
        overrides TEXT NOT NULL DEFAULT '{}',
        password TEXT,
        created_at REAL NOT NULL
    );
    -- The single owner of an install from before accounts becomes its first account: their
    -- API token, console sessions and conversations stay theirs.
    INSERT INTO accounts(id, name, role, created_at) VALUES ('owner', 'owner', 'owner', 0);
    CREATE TABLE account_credentials (
        digest TEXT PRIMARY KEY,
        account_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        expires_at REAL NOT NULL
    );
    CREATE INDEX account_credentials_by_account ON account_credentials(account_id, kind);
    CREATE TABLE account_keys (
        account_id TEXT NOT NULL,
        provider TEXT NOT NULL,
        secret TEXT NOT NULL,
        PRIMARY KEY (account_id, provider)
    );
    CREATE TABLE account_usage (
        account_id TEXT NOT NULL,
        day TEXT NOT NULL,
        calls INTEGER NOT NULL,
        PRIMARY KEY (account_id, day)
    );
    CREATE TABLE account_conversations (
        conversation_id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL,
        shared INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX account_conversations_by_account ON account_conversations(account_id);
    CREATE TABLE approvals (
        id TEXT PRIMARY KEY,
        digest TEXT NOT NULL UNIQUE,
        account_id TEXT NOT NULL,
        conversation_id TEXT,
        capability TEXT NOT NULL,
        arguments TEXT NOT NULL,
        notices TEXT NOT NULL,
        created_at REAL NOT NULL,
        expires_at REAL NOT NULL,
        decision TEXT NOT NULL DEFAULT 'waiting',
        decided_by TEXT
    );
    CREATE TABLE install_secrets (name TEXT PRIMARY KEY, value TEXT NOT NULL);
    """,
    # 3: a sweep in any process claims an unanswered card's expiry once (claim_expired).
    """
    ALTER TABLE confirmations ADD COLUMN expiry_audited INTEGER NOT NULL DEFAULT 0;
    CREATE INDEX confirmations_by_expiry ON confirmations(expiry_audited, expires_at);
    """,
    # 4: pages a turn has read, for the process that carries the turn on (state/pages.py).
    """
    CREATE TABLE page_cache (
        key TEXT PRIMARY KEY, value BLOB NOT NULL, size INTEGER NOT NULL, expires_at REAL NOT NULL
    );
    CREATE INDEX page_cache_by_expiry ON page_cache(expires_at);
    """,
    # 5: the approval taken with a paused turn, kept with it for the process that carries
    # the turn on should the one that took it die before its call started.
    """
    ALTER TABLE paused_turns ADD COLUMN approval TEXT;
    ALTER TABLE paused_turns ADD COLUMN approval_audited INTEGER NOT NULL DEFAULT 0;
    """,
    # 6: "Allow for this conversation" grants (spyglass.core.grants, state/grants.py).
    """
    CREATE TABLE conversation_grants (
        conversation_id TEXT NOT NULL,
        account TEXT NOT NULL,
        capability TEXT NOT NULL,
        expires_at REAL NOT NULL,
        PRIMARY KEY (conversation_id, account, capability)
    );
    CREATE INDEX conversation_grants_by_account ON conversation_grants(account);
    """,
)


#: The history file (``spyglass.db``). Each entry upgrades the schema from version ``i``
#: to ``i + 1``. Append, never edit.
HISTORY_MIGRATIONS: tuple[str, ...] = (
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


def migrate(db: sqlite3.Connection, migrations: Sequence[str], *, what: str) -> int:
    """Bring ``db`` to the newest schema of ``migrations``; returns the resulting version.
    ``what`` names the file in the error an install newer than this Spyglass gets."""
    (version,) = db.execute("PRAGMA user_version").fetchone()
    if version > len(migrations):
        raise StorageError(
            f"{what} has schema version {version}, newer than this Spyglass knows "
            f"({len(migrations)}); upgrade Spyglass or move the file aside"
        )
    for index in range(version, len(migrations)):
        db.executescript(
            "BEGIN IMMEDIATE;" + migrations[index] + f"PRAGMA user_version = {index + 1};COMMIT;"
        )
    return len(migrations)
