"""Conversations and their sources in PostgreSQL (the shared history backend)."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import Any

import psycopg
from psycopg.rows import dict_row
from psycopg_pool import AsyncConnectionPool, PoolTimeout

from spyglass.history.store import assistant_values, public_message, stamp, utc_now
from spyglass.privacy.provenance import Source
from spyglass.state.postgres.connection import (
    POOL_WAIT_SECONDS,
    STATEMENT_SECONDS,
    not_answering,
    unavailable,
)


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
        statement_seconds: float = STATEMENT_SECONDS,
    ) -> None:
        self.url = url
        self.timeout = timeout
        self.statement_seconds = statement_seconds
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
            # The bound covers the pool's own check of the connection it hands out (a query
            # too) as well as the statement: a server that stopped answering fails the call
            # closed instead of holding it. psycopg then cancels what was sent and, failing
            # that, drops the connection, and the pool replaces it.
            async with asyncio.timeout(self.statement_seconds), pool.connection() as db:
                cursor = await db.execute(sql.encode(), params)
                if not fetch:
                    return cursor.rowcount
                return await cursor.fetchall()
        except TimeoutError:
            raise not_answering(self.statement_seconds) from None
        except (psycopg.OperationalError, PoolTimeout) as exc:
            raise unavailable(exc) from exc

    async def health(self) -> dict[str, Any]:
        await self._run("SELECT 1")
        return {"status": "ok"}

    async def exists(self, conversation_id: str) -> bool:
        rows = await self._run("SELECT 1 FROM conversations WHERE id = %s", (conversation_id,))
        return bool(rows)

    async def add_user(self, conversation_id: str, turn_id: str, text: str, *, title: str) -> None:
        now = stamp(self._clock())
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
        now = stamp(self._clock())
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
            (stamp(since),),
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
        data["messages"] = [public_message(m) for m in await self.messages(conversation_id)]
        return data

    async def delete(self, conversation_id: str) -> bool:
        count = await self._run(
            "DELETE FROM conversations WHERE id = %s", (conversation_id,), fetch=False
        )
        return bool(count)

    async def prune(self) -> int:
        cutoff = stamp(self._clock() - self.retention)
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
