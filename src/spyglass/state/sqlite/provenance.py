"""Where a conversation's URLs came from, kept in the history database (``provenance`` table).

It keeps its own connection to the file :class:`~spyglass.state.sqlite.history.SQLiteHistory`
created and migrated, so the two need not share a lock; rows go when their conversation is
deleted or pruned (``ON DELETE CASCADE``).
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

from spyglass.core.workers import STORES
from spyglass.privacy.provenance import Source


class SQLiteProvenanceStore:
    """:class:`~spyglass.privacy.provenance.ProvenanceStore` on the history database.

    SQLite's calls block: each one runs on a worker thread, as
    :class:`~spyglass.state.sqlite.history.ThreadedHistory`'s do.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None

    @contextlib.contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        # One connection kept open (opening one per call cost a millisecond a turn), used by
        # one thread at a time.
        with self._lock:
            if self._db is None:
                db = sqlite3.connect(
                    self.path, isolation_level=None, timeout=5, check_same_thread=False
                )
                db.execute("PRAGMA foreign_keys = ON")
                # As history's own connection: WAL syncs at checkpoints, not on every commit
                # (SQLite's default would flush the disk for each search's sources).
                db.execute("PRAGMA synchronous = NORMAL")
                self._db = db
            try:
                yield self._db
            except BaseException:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None

    async def add(self, conversation_id: str, sources: Sequence[Source]) -> None:
        await STORES.run(self.add_now, conversation_id, sources)

    async def sources(self, conversation_id: str) -> list[Source]:
        return await STORES.run(self.sources_now, conversation_id)

    def add_now(self, conversation_id: str, sources: Sequence[Source]) -> None:
        """:meth:`add`, blocking the calling thread."""
        rows = [(conversation_id, s.url, s.origin, s.label, s.hop) for s in sources]
        with self._connect() as db:
            db.execute("BEGIN IMMEDIATE")
            known = db.execute(
                "SELECT 1 FROM conversations WHERE id = ?", (conversation_id,)
            ).fetchone()
            if known is not None:  # deleted while the turn ran: nothing to attach them to
                db.executemany(
                    "INSERT INTO provenance(conversation_id, url, origin, label, hop) "
                    "VALUES (?,?,?,?,?)",
                    rows,
                )
            db.execute("COMMIT")

    def sources_now(self, conversation_id: str) -> list[Source]:
        """:meth:`sources`, blocking the calling thread."""
        with self._connect() as db:
            rows = db.execute(
                "SELECT url, origin, label, hop FROM provenance WHERE conversation_id = ? "
                "ORDER BY id",
                (conversation_id,),
            ).fetchall()
        return [Source(url, origin, label, hop) for url, origin, label, hop in rows]
