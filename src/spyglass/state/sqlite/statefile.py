"""The embedded backend: tokens, paused turns, sessions and login codes in one SQLite file.

A restart keeps them (a console stays signed in, a turn paused for approval can still be
approved, until it expires on the wall clock), and several processes on one machine share
them: SQLite's own locking makes a take atomic across processes. Every call runs on a worker
thread, never on the event loop. Tokens, session ids and login codes are kept as SHA-256
digests: a copy of the file approves nothing and signs nobody in.
"""

from __future__ import annotations

import secrets
import sqlite3
import threading
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from spyglass.core.confirmation import (
    TOKEN_TTL_SECONDS,
    ConfirmationStore,
    PendingRecord,
    Taken,
    record_from_json,
    record_to_json,
    token_digest,
)
from spyglass.core.workers import STORES
from spyglass.errors import StorageError
from spyglass.paths import make_private_dir
from spyglass.state.sessions import LOGIN_CODE_TTL_SECONDS, SESSION_TTL_SECONDS, Session
from spyglass.state.sqlite.migrations import STATE_MIGRATIONS, migrate

if TYPE_CHECKING:
    from spyglass.conversation.pending import PausedTurn, TurnState

# spyglass.conversation.pending (and the turn's tool calls and sources under it) is imported
# by the paused-turn methods that use it: a command that only opens the state database, such
# as a refused `spyglass fetch`, never loads the conversation code (bench/startup.py).

T = TypeVar("T")


class StateDB:
    """One SQLite connection under a lock; every call goes through :meth:`run` off-loop."""

    def __init__(self, path: Path, clock: Callable[[], float]) -> None:
        self.path = path
        self.clock = clock
        self.version = 0
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None

    def _open(self) -> sqlite3.Connection:
        """The connection, opened (and the schema brought up to date) on first use."""
        if self._db is not None:
            return self._db
        path = self.path
        try:
            make_private_dir(path.parent)
            # Tokens are digests, but paused turns hold transcripts: owner-only, as history.
            path.touch(mode=0o600, exist_ok=True)
            path.chmod(0o600)
        except OSError as exc:
            raise StorageError(
                f"cannot create the state file {path} ({exc.strerror or exc}); check that "
                "SPYGLASS_HOME is writable"
            ) from exc
        db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        db.execute("PRAGMA journal_mode = WAL")
        db.execute("PRAGMA synchronous = NORMAL")
        # Other processes on the same file wait for each other instead of failing.
        db.execute("PRAGMA busy_timeout = 10000")
        self.version = migrate(db, STATE_MIGRATIONS, what="the state file")
        self._db = db
        return db

    async def run(self, work: Callable[[sqlite3.Connection], T]) -> T:
        # A worker thread inside an event loop; in place for a call run without one.
        return await STORES.run(self.run_blocking, work)

    def run_blocking(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """``work`` on this thread, under the lock: for callers with no event loop."""
        with self._lock:
            return work(self._open())

    def transaction(self, work: Callable[[sqlite3.Connection], T]) -> Callable[..., T]:
        """``work`` inside ``BEGIN IMMEDIATE`` … ``COMMIT``: one writer at a time, all processes."""

        def run(db: sqlite3.Connection) -> T:
            db.execute("BEGIN IMMEDIATE")
            try:
                result = work(db)
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")
            return result

        return run

    def snapshot(self, work: Callable[[sqlite3.Connection], T]) -> Callable[..., T]:
        """``work`` that only reads, inside ``BEGIN DEFERRED`` … ``COMMIT``: one consistent
        view of the file that, in WAL mode, neither takes nor waits for the write lock."""

        def run(db: sqlite3.Connection) -> T:
            db.execute("BEGIN DEFERRED")
            try:
                return work(db)
            finally:
                db.execute("COMMIT")

        return run

    def upgrade(self) -> int:
        """Open the file and bring its schema up to date; returns the version."""
        with self._lock:
            self._open()
        return self.version

    async def health(self) -> dict[str, Any]:
        await self.run(lambda db: db.execute("SELECT 1").fetchone())
        return {"status": "ok", "version": self.version}

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None


class SQLiteConfirmationStore:
    def __init__(self, db: StateDB) -> None:
        self.db = db

    def __len__(self) -> int:
        """How many unexpired confirmations are waiting (for tests and diagnostics)."""
        now = self.db.clock()
        row = self.db.run_blocking(
            lambda db: db.execute(
                "SELECT COUNT(*) FROM confirmations WHERE expires_at >= ?", (now,)
            ).fetchone()
        )
        return int(row[0])

    async def put(self, record: PendingRecord) -> None:
        put = _confirmation_put(record, self.db.clock())
        await self.db.run(self.db.transaction(put))

    async def take(self, token: str) -> PendingRecord | None:
        return await self.db.run(_confirmation_take(token))

    async def claim_expired(self, now: float, limit: int) -> list[PendingRecord]:
        # One UPDATE: SQLite runs it under its write lock, so two processes never both get
        # a row.
        rows = await self.db.run(
            lambda db: db.execute(
                "UPDATE confirmations SET expiry_audited = 1 WHERE digest IN (SELECT digest "
                "FROM confirmations WHERE expiry_audited = 0 AND expires_at < ? LIMIT ?) "
                "RETURNING record",
                (now, limit),
            ).fetchall()
        )
        return [record_from_json("", row[0]) for row in rows]


def _confirmation_put(record: PendingRecord, now: float) -> Callable[[sqlite3.Connection], None]:
    """The writes that keep ``record`` (to run inside a transaction)."""
    digest = token_digest(record.token)
    value = record_to_json(record)
    # Kept a grace period past expiry so a late approval hears "expired", not "unknown";
    # past it, dropped once a sweep has audited the expiry.
    cutoff = now - TOKEN_TTL_SECONDS

    def work(db: sqlite3.Connection) -> None:
        db.execute(
            "DELETE FROM confirmations WHERE expiry_audited = 1 AND expires_at < ?", (cutoff,)
        )
        db.execute(
            "INSERT OR REPLACE INTO confirmations(digest, record, expires_at) VALUES (?,?,?)",
            (digest, value, record.expires_at),
        )

    return work


def _kept_approval(
    db: sqlite3.Connection, digest: str, token: str, record: PendingRecord | None
) -> PendingRecord | None:
    """The approval taken with the paused turn ``digest``, kept with it (in the same
    transaction): a process carrying the turn on after the one that took it died gets it
    back, and the turn says whether its call started (never run again) or not (run under it)."""
    if record is not None:
        db.execute(
            "UPDATE paused_turns SET approval = ?, approval_audited = ? WHERE digest = ?",
            (record_to_json(record), int(record.expiry_audited), digest),
        )
        return record
    row = db.execute(
        "SELECT approval, approval_audited FROM paused_turns WHERE digest = ?", (digest,)
    ).fetchone()
    if row is None or row[0] is None:
        return None
    return record_from_json(token, row[0], expiry_audited=bool(row[1]))


def _confirmation_take(token: str) -> Callable[[sqlite3.Connection], PendingRecord | None]:
    """The one statement that removes ``token``'s record and gives it back: atomic alone."""
    digest = token_digest(token)

    def work(db: sqlite3.Connection) -> PendingRecord | None:
        row = db.execute(
            "DELETE FROM confirmations WHERE digest = ? RETURNING record, expiry_audited",
            (digest,),
        ).fetchone()
        if row is None:
            return None
        return record_from_json(token, row[0], expiry_audited=bool(row[1]))

    return work


class SQLitePendingTurnStore:
    def __init__(self, db: StateDB, lease_seconds: float) -> None:
        self.db = db
        self.lease = lease_seconds
        #: Names this process's claims, so a checkpoint never overwrites another's.
        self.owner = uuid.uuid4().hex

    def shares(self, confirmations: ConfirmationStore) -> bool:
        """Whether ``confirmations`` keeps its tokens in this same state file."""
        return isinstance(confirmations, SQLiteConfirmationStore) and confirmations.db is self.db

    def checks_holders(self, accounts: object) -> bool:
        """Whether ``accounts`` (an ``AccountStore``) keeps whose conversation is whose in this
        same state file, as the embedded backend's does."""
        runner = getattr(accounts, "runner", None)
        return getattr(runner, "db", None) is self.db

    async def put(self, paused: PausedTurn, record: PendingRecord | None = None) -> None:
        from spyglass.conversation.pending import RECALL_SECONDS
        from spyglass.conversation.stored import state_to_json

        digest = token_digest(paused.token)
        data = state_to_json(paused.state, paused.token)
        now = self.db.clock()
        # Kept past expiry for the recall window, so a late answer still continues the turn.
        cutoff = now - RECALL_SECONDS
        keep = None if record is None else _confirmation_put(record, now)

        def work(db: sqlite3.Connection) -> None:
            if keep is not None:
                keep(db)
            db.execute(
                "DELETE FROM paused_turns WHERE expires_at < ? AND lease_until < ?",
                (cutoff, cutoff),
            )
            db.execute(
                "INSERT OR REPLACE INTO paused_turns(digest, conversation_id, state, expires_at) "
                "VALUES (?,?,?,?)",
                (digest, paused.state.conversation_id, data, paused.expires_at),
            )

        await self.db.run(self.db.transaction(work))

    async def take(
        self,
        token: str,
        conversation_id: str,
        *,
        with_token: bool = False,
        holder: str | None = None,
    ) -> PausedTurn | None:
        from spyglass.accounts.holders import HOLDER_QUERY, holder_from
        from spyglass.conversation.pending import RECALL_SECONDS, PausedTurn, TurnBusy
        from spyglass.conversation.stored import state_from_json

        digest = token_digest(token)
        now = self.db.clock()
        take_token = _confirmation_take(token) if with_token else None

        def work(db: sqlite3.Connection) -> tuple[str, float, Taken | None] | float | None:
            if holder is not None:
                # As AccountStore.holder reads it, in this transaction.
                rows = db.execute(HOLDER_QUERY, (conversation_id,)).fetchall()
                if holder_from(rows)[0] != holder:
                    return None
            row: tuple[str, str, float, float] | None = db.execute(
                "SELECT conversation_id, state, expires_at, lease_until FROM paused_turns "
                "WHERE digest = ?",
                (digest,),
            ).fetchone()
            if row is None or row[0] != conversation_id:
                return None
            state, expires_at, lease_until = row[1], row[2], row[3]
            if lease_until == 0 and expires_at + RECALL_SECONDS < now:
                db.execute("DELETE FROM paused_turns WHERE digest = ?", (digest,))
                return None
            if lease_until > now:
                return lease_until - now
            db.execute(
                "UPDATE paused_turns SET lease_until = ?, owner = ? WHERE digest = ?",
                (now + self.lease, self.owner, digest),
            )
            # Only a turn claimed here spends its token: a busy or foreign one keeps it.
            taken = None if take_token is None else Taken(take_token(db))
            if taken is not None:
                taken = Taken(_kept_approval(db, digest, token, taken.record))
            return state, expires_at, taken

        found = await self.db.run(self.db.transaction(work))
        if found is None:
            return None
        if isinstance(found, float):
            raise TurnBusy(found)
        return PausedTurn(token, state_from_json(found[0], token), found[1], taken=found[2])

    async def checkpoint(self, token: str, state: TurnState) -> None:
        from spyglass.conversation.stored import state_to_json

        digest = token_digest(token)
        data = state_to_json(state, token)
        lease_until = self.db.clock() + self.lease
        await self.db.run(
            lambda db: db.execute(
                "UPDATE paused_turns SET state = ?, lease_until = ? WHERE digest = ? AND owner = ?",
                (data, lease_until, digest, self.owner),
            )
        )

    async def finish(self, token: str) -> None:
        digest = token_digest(token)
        await self.db.run(
            lambda db: db.execute(
                "DELETE FROM paused_turns WHERE digest = ? AND owner = ?", (digest, self.owner)
            )
        )


class SQLiteSessions:
    def __init__(self, db: StateDB) -> None:
        self.db = db

    async def create(self) -> str:
        session_id = secrets.token_urlsafe(32)
        csrf = secrets.token_urlsafe(32)
        now = self.db.clock()

        def work(db: sqlite3.Connection) -> None:
            db.execute("DELETE FROM sessions WHERE expires_at <= ?", (now,))
            db.execute(
                "INSERT INTO sessions(digest, csrf, expires_at) VALUES (?,?,?)",
                (token_digest(session_id), csrf, now + SESSION_TTL_SECONDS),
            )

        await self.db.run(self.db.transaction(work))
        return session_id

    async def get(self, session_id: str) -> Session | None:
        digest = token_digest(session_id)
        row = await self.db.run(
            lambda db: db.execute(
                "SELECT csrf, expires_at FROM sessions WHERE digest = ?", (digest,)
            ).fetchone()
        )
        if row is None or row[1] <= self.db.clock():
            return None
        return Session(row[0], row[1])

    async def end(self, session_id: str) -> bool:
        digest = token_digest(session_id)
        now = self.db.clock()
        row = await self.db.run(
            self.db.transaction(
                lambda db: db.execute(
                    "DELETE FROM sessions WHERE digest = ? RETURNING expires_at", (digest,)
                ).fetchone()
            )
        )
        return row is not None and row[0] > now


class SQLiteLoginCodes:
    def __init__(self, db: StateDB) -> None:
        self.db = db

    async def issue(self) -> str:
        code = secrets.token_urlsafe(24)
        now = self.db.clock()

        def work(db: sqlite3.Connection) -> None:
            db.execute("DELETE FROM login_codes WHERE expires_at <= ?", (now,))
            db.execute(
                "INSERT INTO login_codes(digest, expires_at) VALUES (?,?)",
                (token_digest(code), now + LOGIN_CODE_TTL_SECONDS),
            )

        await self.db.run(self.db.transaction(work))
        return code

    async def redeem(self, code: str) -> bool:
        digest = token_digest(code)
        row = await self.db.run(
            lambda db: db.execute(
                "DELETE FROM login_codes WHERE digest = ? RETURNING expires_at", (digest,)
            ).fetchone()
        )
        return row is not None and row[0] > self.db.clock()
