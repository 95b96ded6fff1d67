"""The shared backend's durable half: history, the audit log and the policy switch in PostgreSQL.

- history: the same tables and answers as the SQLite store; full-text search covers only
  what the user and the model wrote (a generated ``tsvector`` over ``messages.text``, accents
  folded), never web text, which lives in ``events`` and ``exchanges``;
- audit: an append-only table (a trigger refuses UPDATE and DELETE), written by a background
  thread so recording an event never waits on the network;
- policy: one row per switch, read fresh on every call; unreadable means off.

Versioned migrations run on start under an advisory lock (several processes may start at
once); ``spyglass db upgrade`` runs them by hand. Connection failures become
:class:`~spyglass.errors.StoreUnavailable`.
"""

from __future__ import annotations

import atexit
import json
import logging
import queue
import re
import threading
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

import psycopg
from psycopg.rows import dict_row
from psycopg_pool import AsyncConnectionPool, PoolTimeout

from spyglass.core.audit import AUDIT_FIELDS
from spyglass.core.outcome import Code
from spyglass.core.policy import KNOWN_KEYS, PolicyProblem, PolicySnapshot
from spyglass.core.policy import default as policy_default
from spyglass.errors import StoreUnavailable
from spyglass.history.store import _public, _stamp, assistant_values, utc_now
from spyglass.privacy.provenance import Source

logger = logging.getLogger(__name__)

#: How long a request waits for a pooled connection before PostgreSQL counts as unavailable.
POOL_WAIT_SECONDS = 30.0

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


def unavailable(exc: BaseException) -> StoreUnavailable:
    return StoreUnavailable(
        "postgresql", f"PostgreSQL cannot be reached ({type(exc).__name__}: {exc})"
    )


def connect(url: str, timeout: float) -> psycopg.Connection[Any]:
    try:
        return psycopg.connect(url, connect_timeout=max(1, round(timeout)), autocommit=True)
    except psycopg.Error as exc:
        raise unavailable(exc) from exc


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


def search_query(text: str) -> str | None:
    """Free text → a tsquery matching every word (as a prefix), with no tsquery syntax."""
    words = re.findall(r"\w+", text.lower())
    return " & ".join(f"'{word}':*" for word in words[:20]) or None


class PostgresHistory:
    """Conversations in PostgreSQL, through an async connection pool."""

    enabled = True

    def __init__(
        self,
        url: str,
        *,
        retention_days: int,
        timeout: float,
        clock: Callable[[], datetime] = utc_now,
    ) -> None:
        self.url = url
        self.timeout = timeout
        self.retention = timedelta(days=retention_days)
        self._clock = clock
        self._pool: AsyncConnectionPool | None = None

    async def _connection_pool(self) -> AsyncConnectionPool:
        if self._pool is None:
            pool = AsyncConnectionPool(
                self.url,
                min_size=1,
                max_size=16,
                open=False,
                # Waiting for a free connection under load is not an outage: a request queues
                # up to this long. Reaching the server is bounded by connect_timeout.
                timeout=max(POOL_WAIT_SECONDS, self.timeout),
                kwargs={
                    "autocommit": True,
                    "row_factory": dict_row,
                    "connect_timeout": max(1, round(self.timeout)),
                },
                # A server that went away and came back: broken connections are replaced.
                check=AsyncConnectionPool.check_connection,
            )
            await pool.open(wait=False)
            self._pool = pool
        return self._pool

    async def _run(self, sql: str, params: tuple[Any, ...] = (), *, fetch: bool = True) -> Any:
        pool = await self._connection_pool()
        try:
            async with pool.connection() as db:
                cursor = await db.execute(sql.encode(), params)
                if not fetch:
                    return cursor.rowcount
                return await cursor.fetchall()
        except (psycopg.OperationalError, PoolTimeout) as exc:
            raise unavailable(exc) from exc

    async def health(self) -> dict[str, Any]:
        await self._run("SELECT 1")
        return {"status": "ok"}

    async def exists(self, conversation_id: str) -> bool:
        rows = await self._run("SELECT 1 FROM conversations WHERE id = %s", (conversation_id,))
        return bool(rows)

    async def add_user(self, conversation_id: str, turn_id: str, text: str, *, title: str) -> None:
        now = _stamp(self._clock())
        await self._run(
            "WITH c AS (INSERT INTO conversations(id, title, created_at, updated_at) "
            "VALUES (%s,%s,%s,%s) ON CONFLICT (id) DO UPDATE SET updated_at = excluded.updated_at "
            "RETURNING id) INSERT INTO messages(conversation_id, turn_id, role, text, created_at) "
            "SELECT id, %s, 'user', %s, %s FROM c",
            (conversation_id, title.strip() or "Untitled", now, now, turn_id, text, now),
            fetch=False,
        )

    async def save_assistant(
        self,
        conversation_id: str,
        turn_id: str,
        *,
        text: str,
        reasoning: str,
        events: list[dict[str, Any]],
        citations: list[dict[str, Any]],
        exchanges: list[dict[str, Any]],
        receipt: dict[str, Any] | None = None,
    ) -> None:
        now = _stamp(self._clock())
        values = assistant_values(text, reasoning, events, citations, exchanges, receipt)
        # Only into a conversation that still exists: one deleted while the turn ran stays
        # deleted.
        await self._run(
            "WITH c AS (UPDATE conversations SET updated_at = %s WHERE id = %s RETURNING id) "
            "INSERT INTO messages(conversation_id, turn_id, role, text, reasoning, events, "
            "citations, exchanges, receipt, created_at) "
            "SELECT id, %s, 'assistant', %s, %s, %s, %s, %s, %s, %s "
            "FROM c ON CONFLICT (turn_id, role) DO UPDATE SET text = excluded.text, "
            "reasoning = excluded.reasoning, events = excluded.events, "
            "citations = excluded.citations, exchanges = excluded.exchanges, "
            "receipt = excluded.receipt",
            (now, conversation_id, turn_id, *values, now),
            fetch=False,
        )

    async def messages(self, conversation_id: str) -> list[dict[str, Any]]:
        rows = await self._run(
            "SELECT role, text, reasoning, events, citations, exchanges, receipt, created_at "
            "FROM messages WHERE conversation_id = %s ORDER BY id",
            (conversation_id,),
        )
        return [
            {
                **row,
                "events": json.loads(row["events"]),
                "citations": json.loads(row["citations"]),
                "exchanges": json.loads(row["exchanges"]),
                "receipt": json.loads(row["receipt"]) if row["receipt"] else None,
            }
            for row in rows
        ]

    async def receipts(self, since: datetime) -> list[dict[str, Any]]:
        rows = await self._run(
            "SELECT m.conversation_id, c.title, m.turn_id, m.created_at, m.receipt "
            "FROM messages m JOIN conversations c ON c.id = m.conversation_id "
            "WHERE m.role = 'assistant' AND m.receipt IS NOT NULL AND m.created_at >= %s "
            "ORDER BY m.created_at, m.id",
            (_stamp(since),),
        )
        return [{**row, "receipt": json.loads(row["receipt"])} for row in rows]

    def provenance(self) -> PostgresProvenanceStore:
        """Where this history's conversations keep their URLs' provenance."""
        return PostgresProvenanceStore(self)

    async def conversations(self, query: str | None = None) -> list[dict[str, Any]]:
        if not query:
            rows = await self._run(
                "SELECT id, title, created_at, updated_at FROM conversations "
                "ORDER BY updated_at DESC, seq DESC"
            )
            return list(rows)
        match = search_query(query)
        if match is None:
            return []
        rows = await self._run(
            "SELECT id, title, created_at, updated_at FROM conversations WHERE id IN "
            "(SELECT conversation_id FROM "
            "messages WHERE search @@ to_tsquery('simple', spyglass_fold(%s))) "
            "ORDER BY updated_at DESC, seq DESC",
            (match,),
        )
        return list(rows)

    async def conversation(self, conversation_id: str) -> dict[str, Any] | None:
        rows = await self._run(
            "SELECT id, title, created_at, updated_at FROM conversations WHERE id = %s",
            (conversation_id,),
        )
        if not rows:
            return None
        data = dict(rows[0])
        data["messages"] = [_public(m) for m in await self.messages(conversation_id)]
        return data

    async def delete(self, conversation_id: str) -> bool:
        count = await self._run(
            "DELETE FROM conversations WHERE id = %s", (conversation_id,), fetch=False
        )
        return bool(count)

    async def prune(self) -> int:
        cutoff = _stamp(self._clock() - self.retention)
        count = await self._run(
            "DELETE FROM conversations WHERE updated_at < %s", (cutoff,), fetch=False
        )
        return int(count)

    async def close(self) -> None:
        if self._pool is not None:
            await self._pool.close()
            self._pool = None


class PostgresProvenanceStore:
    """:class:`~spyglass.privacy.provenance.ProvenanceStore` in the history database.

    Rows go with their conversation (``ON DELETE CASCADE``); sources for a conversation that
    was deleted while the turn ran are not kept.
    """

    def __init__(self, history: PostgresHistory) -> None:
        self.history = history

    async def add(self, conversation_id: str, sources: Sequence[Source]) -> None:
        if not sources:
            return
        await self.history._run(
            "INSERT INTO provenance(conversation_id, url, origin, label, hop) "
            "SELECT c.id, s.url, s.origin, s.label, s.hop FROM conversations c, "
            "unnest(%s::text[], %s::text[], %s::text[], %s::int[]) WITH ORDINALITY "
            "AS s(url, origin, label, hop, n) WHERE c.id = %s ORDER BY s.n",
            (
                [s.url for s in sources],
                [s.origin for s in sources],
                [s.label for s in sources],
                [s.hop for s in sources],
                conversation_id,
            ),
            fetch=False,
        )

    async def sources(self, conversation_id: str) -> list[Source]:
        rows = await self.history._run(
            "SELECT url, origin, label, hop FROM provenance WHERE conversation_id = %s ORDER BY id",
            (conversation_id,),
        )
        return [Source(row["url"], row["origin"], row["label"], row["hop"]) for row in rows]


class PostgresAudit:
    """The audit log as an append-only table. ``record`` queues; a thread writes in order."""

    def __init__(self, url: str, *, timeout: float, capacity: int = 10000) -> None:
        self.url = url
        self.timeout = timeout
        self._queue: queue.Queue[dict[str, Any] | None] = queue.Queue(capacity)
        self._thread: threading.Thread | None = None
        self._start_lock = threading.Lock()
        self._db: psycopg.Connection[Any] | None = None
        self._pending = 0
        self._idle = threading.Condition()
        self._exit_hook = False

    def record(self, event: Mapping[str, Any]) -> None:
        unknown = set(event) - set(AUDIT_FIELDS)
        if unknown:
            raise ValueError(f"audit events may not carry {sorted(unknown)}")
        self._ensure_thread()
        with self._idle:
            self._pending += 1
        try:
            self._queue.put_nowait(dict(event))
        except queue.Full:
            with self._idle:
                self._pending -= 1
            logger.error("audit queue full (PostgreSQL unreachable for long): event dropped")

    def flush(self, timeout: float) -> bool:
        """Wait until every queued event is written; ``False`` if that took too long."""
        with self._idle:
            return self._idle.wait_for(lambda: self._pending == 0, timeout)

    def tail(self, count: int) -> list[dict[str, Any]]:
        if count <= 0:
            return []
        with connect(self.url, self.timeout) as db:
            rows = db.execute(
                "SELECT event FROM (SELECT id, event FROM audit_events ORDER BY id DESC LIMIT %s) "
                "newest ORDER BY id",
                (count,),
            ).fetchall()
        return [row[0] for row in rows]

    def close(self, timeout: float = 5.0) -> None:
        self.flush(timeout)
        if self._thread is not None:
            self._queue.put(None)
            self._thread.join(timeout)

    def _ensure_thread(self) -> None:
        with self._start_lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(
                    target=self._write_loop, name="spyglass-audit", daemon=True
                )
                self._thread.start()
                if not self._exit_hook:
                    # A short-lived process (the CLI) writes its events before it exits.
                    atexit.register(self.flush, self.timeout * 2)
                    self._exit_hook = True

    def _write_loop(self) -> None:
        stop = threading.Event()
        while True:
            event = self._queue.get()
            if event is None:
                return
            delay = 0.1
            while True:
                try:
                    if self._db is None or self._db.closed:
                        self._db = connect(self.url, self.timeout)
                    self._db.execute(
                        "INSERT INTO audit_events(event) VALUES (%s)", (json.dumps(event),)
                    )
                    break
                except (StoreUnavailable, psycopg.Error) as exc:
                    logger.warning("audit event not yet written (%s); retrying", exc)
                    if self._db is not None:
                        self._db.close()
                        self._db = None
                    # Back off, up to 5 s, until PostgreSQL is back; nothing is dropped.
                    stop.wait(delay)
                    delay = min(delay * 2, 5.0)
            with self._idle:
                self._pending -= 1
                self._idle.notify_all()


class PostgresPolicy:
    """The owner's switches in a table, read fresh on every call. Unreadable means off.

    Its calls block on the network: ``blocking`` tells coroutines to read it on a worker
    thread (:func:`spyglass.core.policy.read_snapshot`).
    """

    blocking = True

    def __init__(self, url: str, *, timeout: float) -> None:
        self.url = url
        self.timeout = timeout
        self._lock = threading.Lock()
        self._db: psycopg.Connection[Any] | None = None

    def _query(self, sql: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        with self._lock:
            for attempt in (1, 2):
                try:
                    if self._db is None or self._db.closed:
                        self._db = connect(self.url, self.timeout)
                    return self._db.execute(sql.encode(), params).fetchall()
                except psycopg.OperationalError as exc:
                    # A connection the server dropped: one fresh try, then report.
                    if self._db is not None:
                        self._db.close()
                    self._db = None
                    if attempt == 2:
                        raise unavailable(exc) from exc
        raise AssertionError("unreachable")  # pragma: no cover

    def read(self) -> dict[str, bool]:
        try:
            rows = self._query("SELECT key, enabled FROM policy", ())
        except StoreUnavailable as exc:
            logger.warning("policy cannot be read (%s); every switch stays off", exc.message)
            return dict.fromkeys(KNOWN_KEYS, False)
        # A switch never set has its default (search and fetch on under web access).
        values = {key: policy_default(key) for key in KNOWN_KEYS}
        values.update({key: enabled is True for key, enabled in rows if key in values})
        return values

    def snapshot(self) -> PolicySnapshot:
        """Every switch in one query; unreadable means every switch off, and says why."""
        try:
            rows = self._query("SELECT key, enabled FROM policy", ())
        except StoreUnavailable as exc:
            logger.warning("policy cannot be read (%s); every switch stays off", exc.message)
            problem = PolicyProblem(
                f"the policy table in PostgreSQL cannot be read ({exc.message}), so web "
                "access stays off; check that PostgreSQL is running (GET /api/v1/health)",
                "PostgreSQL table policy",
                code=Code.STORE_UNAVAILABLE,
            )
            return PolicySnapshot(dict.fromkeys(KNOWN_KEYS, False), problem)
        values = {key: policy_default(key) for key in KNOWN_KEYS}
        values.update({key: enabled is True for key, enabled in rows if key in values})
        return PolicySnapshot(values)

    def enabled(self, key: str) -> bool:
        try:
            rows = self._query("SELECT enabled FROM policy WHERE key = %s", (key,))
        except StoreUnavailable as exc:
            logger.warning("policy cannot be read (%s); %s stays off", exc.message, key)
            return False
        if not rows:
            return policy_default(key)
        return rows[0][0] is True

    def set(self, key: str, value: bool) -> dict[str, bool]:
        if key not in KNOWN_KEYS:
            raise KeyError(key)
        self._query(
            "INSERT INTO policy(key, enabled) VALUES (%s, %s) "
            "ON CONFLICT (key) DO UPDATE SET enabled = excluded.enabled RETURNING key",
            (key, value),
        )
        return self.read()

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None
