"""The PostgreSQL schema: versioned migrations, run under an advisory lock.

Each entry of MIGRATIONS upgrades the schema by one version. Append, never edit: installs
depend on the exact SQL text.
"""

from __future__ import annotations

import psycopg

from spyglass.errors import StoreUnavailable
from spyglass.state.postgres.connection import connect, unavailable

_LOCK_KEY = 0x5350_5947  # "SPYG": serialises migrations across processes

#: Each entry upgrades the schema from version ``i`` to ``i + 1``. Append, never edit.
MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE conversations (
        id TEXT PRIMARY KEY,
        title TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        seq BIGSERIAL
    );
    CREATE INDEX conversations_by_update ON conversations(updated_at);
    CREATE TABLE messages (
        id BIGSERIAL PRIMARY KEY,
        conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
        turn_id TEXT NOT NULL,
        role TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
        text TEXT NOT NULL,
        reasoning TEXT NOT NULL DEFAULT '',
        events TEXT NOT NULL DEFAULT '[]',
        citations TEXT NOT NULL DEFAULT '[]',
        exchanges TEXT NOT NULL DEFAULT '[]',
        created_at TEXT NOT NULL,
        -- Only what the user and the model wrote is searchable: never web text.
        search tsvector GENERATED ALWAYS AS (to_tsvector('simple', text)) STORED,
        UNIQUE (turn_id, role)
    );
    CREATE INDEX messages_by_conversation ON messages(conversation_id, id);
    CREATE INDEX messages_search ON messages USING GIN (search);
    CREATE TABLE audit_events (
        id BIGSERIAL PRIMARY KEY,
        event JSONB NOT NULL,
        recorded_at TIMESTAMPTZ NOT NULL DEFAULT now()
    );
    CREATE FUNCTION spyglass_audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        RAISE EXCEPTION 'the audit log is append-only';
    END $$;
    CREATE TRIGGER audit_events_append_only BEFORE UPDATE OR DELETE OR TRUNCATE
        ON audit_events FOR EACH STATEMENT EXECUTE FUNCTION spyglass_audit_append_only();
    CREATE TABLE policy (key TEXT PRIMARY KEY, enabled BOOLEAN NOT NULL);
    """,
    # 2: what left the device during each answer, and where a conversation's URLs came from
    # (as the SQLite history's migration 2).
    """
    ALTER TABLE messages ADD COLUMN receipt TEXT;
    CREATE TABLE provenance (
        id BIGSERIAL PRIMARY KEY,
        conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
        url TEXT NOT NULL,
        origin TEXT NOT NULL,
        label TEXT NOT NULL,
        hop INTEGER NOT NULL
    );
    CREATE INDEX provenance_by_conversation ON provenance(conversation_id, id);
    CREATE INDEX messages_by_time ON messages(role, created_at);
    """,
    # 3: household accounts (spyglass.accounts), as the SQLite state file's migration 2.
    """
    CREATE TABLE accounts (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        role TEXT NOT NULL,
        disabled INTEGER NOT NULL DEFAULT 0,
        parent INTEGER NOT NULL DEFAULT 0,
        overrides TEXT NOT NULL DEFAULT '{}',
        password TEXT,
        created_at DOUBLE PRECISION NOT NULL
    );
    -- The single owner of an install from before accounts becomes its first account: their
    -- API token, console sessions and conversations stay theirs.
    INSERT INTO accounts(id, name, role, created_at) VALUES ('owner', 'owner', 'owner', 0);
    CREATE TABLE account_credentials (
        digest TEXT PRIMARY KEY,
        account_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        expires_at DOUBLE PRECISION NOT NULL
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
        created_at DOUBLE PRECISION NOT NULL,
        expires_at DOUBLE PRECISION NOT NULL,
        decision TEXT NOT NULL DEFAULT 'waiting',
        decided_by TEXT
    );
    CREATE TABLE install_secrets (name TEXT PRIMARY KEY, value TEXT NOT NULL);
    """,
    # 4: search folds accents both ways ("cafe" finds "café"), as the SQLite history does.
    # spyglass_fold() uses the unaccent extension when it can be created (PostgreSQL's
    # contrib; a trusted extension, so the database owner may create it), else a fixed
    # table of Latin letters. Declared IMMUTABLE so the generated column may use it: the
    # unaccent dictionary is named with its schema and never changes under us.
    """
    DO $migration$
    DECLARE
        home TEXT;
    BEGIN
        BEGIN
            CREATE EXTENSION IF NOT EXISTS unaccent;
        EXCEPTION WHEN OTHERS THEN
            RAISE NOTICE 'unaccent is not available (%); folding a fixed set of letters', SQLERRM;
        END;
        SELECT n.nspname INTO home FROM pg_extension e
            JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'unaccent';
        IF home IS NOT NULL THEN
            EXECUTE format(
                'CREATE FUNCTION spyglass_fold(value TEXT) RETURNS TEXT LANGUAGE sql '
                'IMMUTABLE STRICT PARALLEL SAFE AS $fold$ SELECT lower(%1$I.unaccent('
                '%2$L::regdictionary, value)) $fold$',
                home, home || '.unaccent');
        ELSE
            CREATE FUNCTION spyglass_fold(value TEXT) RETURNS TEXT LANGUAGE sql
                IMMUTABLE STRICT PARALLEL SAFE AS $fold$ SELECT translate(lower(value),
                'àáâãäåāăąǎạảấầẩẫậắằẳẵặçćĉċčďđèéêëēĕėęěẹẻẽếềểễệìíîïĩīĭįıǐịỉñńņňòóôõöøōŏőơǒọỏốồổỗộớờởỡợùúûüũūŭůűųưǔụủứừửữựýÿŷỳỵỷỹźżž',
                'aaaaaaaaaaaaaaaaaaaaaacccccddeeeeeeeeeeeeeeeeeiiiiiiiiiiiinnnnooooooooooooooooooooooouuuuuuuuuuuuuuuuuuuyyyyyyyzzz')
                $fold$;
        END IF;
    END
    $migration$;
    DROP INDEX messages_search;
    ALTER TABLE messages DROP COLUMN search;
    ALTER TABLE messages ADD COLUMN search tsvector
        GENERATED ALWAYS AS (to_tsvector('simple', spyglass_fold(text))) STORED;
    CREATE INDEX messages_search ON messages USING GIN (search);
    """,
)


def upgrade(url: str, timeout: float) -> int:
    """Bring the database to the newest schema; returns the resulting version."""
    with connect(url, timeout) as db:
        try:
            with db.transaction():
                db.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK_KEY,))
                db.execute("CREATE TABLE IF NOT EXISTS spyglass_schema (version INTEGER NOT NULL)")
                row = db.execute("SELECT max(version) FROM spyglass_schema").fetchone()
                version = (row[0] if row else None) or 0
                if version > len(MIGRATIONS):
                    raise StoreUnavailable(
                        "postgresql",
                        f"the database has schema version {version}, newer than this Spyglass "
                        f"knows ({len(MIGRATIONS)}); upgrade Spyglass",
                    )
                for index in range(version, len(MIGRATIONS)):
                    db.execute(MIGRATIONS[index].encode())
                    db.execute("INSERT INTO spyglass_schema(version) VALUES (%s)", (index + 1,))
        except psycopg.OperationalError as exc:
            raise unavailable(exc) from exc
    return len(MIGRATIONS)
