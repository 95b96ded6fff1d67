"""The embedded history: conversations in one SQLite file (``spyglass.db``).

:class:`SQLiteHistory` is the synchronous SQLite engine, which :class:`ThreadedHistory` runs
off the event loop behind :class:`~spyglass.history.store.HistoryStore`.
"""

from __future__ import annotations

import functools
import json
import re
import sqlite3
import threading
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from spyglass.core.workers import STORES
from spyglass.history.store import (
    HistoryStore,
    NullHistory,
    assistant_values,
    public_message,
    stamp,
    utc_now,
)
from spyglass.paths import make_private_dir
from spyglass.state.sqlite.migrations import HISTORY_MIGRATIONS, migrate
from spyglass.state.sqlite.provenance import SQLiteProvenanceStore


class ThreadedHistory:
    """A :class:`SQLiteHistory` behind the async interface: each call runs on a worker thread.

    SQLite's calls block; run on the event loop they would stall every other request.
    """

    enabled = True

    def __init__(self, store: SQLiteHistory) -> None:
        self.store = store

    def provenance(self) -> SQLiteProvenanceStore:
        """Where this conversation's sources are kept: beside its messages, in its file."""
        return self.store.provenance()

    async def exists(self, conversation_id: str) -> bool:
        return await STORES.run(self.store.exists, conversation_id)

    async def add_user(self, conversation_id: str, turn_id: str, text: str, *, title: str) -> None:
        await STORES.run(
            functools.partial(self.store.add_user, conversation_id, turn_id, text, title=title)
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
        await STORES.run(
            functools.partial(
                self.store.save_assistant,
                conversation_id,
                turn_id,
                text=text,
                reasoning=reasoning,
                events=events,
                citations=citations,
                exchanges=exchanges,
                receipt=receipt,
            )
        )

    async def messages(self, conversation_id: str) -> list[dict[str, Any]]:
        return await STORES.run(self.store.messages, conversation_id)

    async def receipts(self, since: datetime) -> list[dict[str, Any]]:
        return await STORES.run(self.store.receipts, since)

    async def conversations(self, query: str | None = None) -> list[dict[str, Any]]:
        return await STORES.run(self.store.conversations, query)

    async def conversation(self, conversation_id: str) -> dict[str, Any] | None:
        return await STORES.run(self.store.conversation, conversation_id)

    async def delete(self, conversation_id: str) -> bool:
        return await STORES.run(self.store.delete, conversation_id)

    async def prune(self) -> int:
        return await STORES.run(self.store.prune)

    async def close(self) -> None:
        self.store.close()


def fts_query(text: str) -> str | None:
    """Free text → an FTS5 query matching every word (as a prefix), with no FTS syntax."""
    words = re.findall(r"\w+", text)
    return " ".join(f'"{word}"*' for word in words[:20]) or None


class SQLiteHistory:
    """One SQLite file; safe to share between threads (one connection under a lock)."""

    enabled = True

    def __init__(
        self,
        path: Path,
        *,
        retention_days: int,
        clock: Callable[[], datetime] = utc_now,
    ) -> None:
        make_private_dir(path.parent)
        # Conversations are private: the file (and its -wal/-shm siblings, which SQLite
        # creates with the same mode) is readable by the owner only.
        path.touch(mode=0o600, exist_ok=True)
        path.chmod(0o600)
        self.path = path
        self.retention = timedelta(days=retention_days)
        self._clock = clock
        self._lock = threading.Lock()
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._db.row_factory = sqlite3.Row
        self._db.execute("PRAGMA foreign_keys = ON")
        self._db.execute("PRAGMA journal_mode = WAL")
        # WAL with NORMAL sync: a power cut may lose the last turns, never corrupt the file.
        self._db.execute("PRAGMA synchronous = NORMAL")
        self._db.execute("PRAGMA busy_timeout = 5000")
        with self._lock:
            self.version = migrate(self._db, HISTORY_MIGRATIONS, what="the history database")

    def provenance(self) -> SQLiteProvenanceStore:
        """Where this conversation's sources are kept: beside its messages, in this file."""
        return SQLiteProvenanceStore(self.path)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def exists(self, conversation_id: str) -> bool:
        with self._lock:
            return self._known(conversation_id)

    def _known(self, conversation_id: str) -> bool:
        """Whether the conversation is stored; the caller holds the lock."""
        row = self._db.execute(
            "SELECT 1 FROM conversations WHERE id = ?", (conversation_id,)
        ).fetchone()
        return row is not None

    def add_user(self, conversation_id: str, turn_id: str, text: str, *, title: str) -> None:
        now = stamp(self._clock())
        with self._lock, self._db:
            self._db.execute("BEGIN IMMEDIATE")
            self._db.execute(
                "INSERT INTO conversations(id, title, created_at, updated_at) VALUES (?,?,?,?) "
                "ON CONFLICT(id) DO UPDATE SET updated_at = excluded.updated_at",
                (conversation_id, title.strip() or "Untitled", now, now),
            )
            self._db.execute(
                "INSERT INTO messages(conversation_id, turn_id, role, text, created_at) "
                "VALUES (?,?,?,?,?)",
                (conversation_id, turn_id, "user", text, now),
            )

    def save_assistant(
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
        now = stamp(self._clock())
        values = assistant_values(text, reasoning, events, citations, exchanges, receipt)
        with self._lock, self._db:
            self._db.execute("BEGIN IMMEDIATE")
            if not self._known(conversation_id):
                return  # deleted while the turn ran: do not resurrect it
            self._db.execute(
                "INSERT INTO messages(conversation_id, turn_id, role, text, reasoning, events, "
                "citations, exchanges, receipt, created_at) "
                "VALUES (?,?,'assistant',?,?,?,?,?,?,?) "
                "ON CONFLICT(turn_id, role) DO UPDATE SET text = excluded.text, "
                "reasoning = excluded.reasoning, events = excluded.events, "
                "citations = excluded.citations, exchanges = excluded.exchanges, "
                "receipt = excluded.receipt",
                (conversation_id, turn_id, *values, now),
            )
            self._db.execute(
                "UPDATE conversations SET updated_at = ? WHERE id = ?", (now, conversation_id)
            )

    def messages(self, conversation_id: str) -> list[dict[str, Any]]:
        with self._lock:
            rows = self._db.execute(
                "SELECT * FROM messages WHERE conversation_id = ? ORDER BY id", (conversation_id,)
            ).fetchall()
        return [_message(row) for row in rows]

    def receipts(self, since: datetime) -> list[dict[str, Any]]:
        with self._lock:
            rows = self._db.execute(
                "SELECT m.conversation_id, m.turn_id, m.created_at, m.receipt, c.title "
                "FROM messages m JOIN conversations c ON c.id = m.conversation_id "
                "WHERE m.role = 'assistant' AND m.receipt IS NOT NULL AND m.created_at >= ? "
                "ORDER BY m.created_at, m.id",
                (stamp(since),),
            ).fetchall()
        return [
            {
                "conversation_id": row["conversation_id"],
                "title": row["title"],
                "turn_id": row["turn_id"],
                "created_at": row["created_at"],
                "receipt": json.loads(row["receipt"]),
            }
            for row in rows
        ]

    def conversations(self, query: str | None = None) -> list[dict[str, Any]]:
        match = fts_query(query) if query else None
        with self._lock:
            if query and match is None:
                return []
            if match is None:
                rows = self._db.execute(
                    "SELECT * FROM conversations ORDER BY updated_at DESC, rowid DESC"
                ).fetchall()
            else:
                rows = self._db.execute(
                    "SELECT * FROM conversations WHERE id IN (SELECT m.conversation_id FROM "
                    "messages_fts JOIN messages m ON m.id = messages_fts.rowid "
                    "WHERE messages_fts MATCH ?) ORDER BY updated_at DESC, rowid DESC",
                    (match,),
                ).fetchall()
        return [dict(row) for row in rows]

    def conversation(self, conversation_id: str) -> dict[str, Any] | None:
        with self._lock:
            row = self._db.execute(
                "SELECT * FROM conversations WHERE id = ?", (conversation_id,)
            ).fetchone()
        if row is None:
            return None
        data = dict(row)
        data["messages"] = [public_message(m) for m in self.messages(conversation_id)]
        return data

    def delete(self, conversation_id: str) -> bool:
        with self._lock, self._db:
            cursor = self._db.execute("DELETE FROM conversations WHERE id = ?", (conversation_id,))
        return cursor.rowcount > 0

    def prune(self) -> int:
        """Delete conversations not updated within the retention period."""
        cutoff = stamp(self._clock() - self.retention)
        with self._lock, self._db:
            cursor = self._db.execute("DELETE FROM conversations WHERE updated_at < ?", (cutoff,))
        return cursor.rowcount


def _message(row: sqlite3.Row) -> dict[str, Any]:
    return {
        "role": row["role"],
        "text": row["text"],
        "reasoning": row["reasoning"],
        "events": json.loads(row["events"]),
        "citations": json.loads(row["citations"]),
        "exchanges": json.loads(row["exchanges"]),
        "receipt": json.loads(row["receipt"]) if row["receipt"] else None,
        "created_at": row["created_at"],
    }


def open_history(path: Path, *, enabled: bool, retention_days: int) -> HistoryStore:
    """The embedded store the settings ask for; the SQLite one is pruned on opening."""
    if not enabled:
        return NullHistory()
    store = SQLiteHistory(path, retention_days=retention_days)
    store.prune()
    return ThreadedHistory(store)
