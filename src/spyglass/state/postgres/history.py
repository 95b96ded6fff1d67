"""Conversations and their sources in PostgreSQL (the shared history backend)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import Any

import psycopg
from psycopg.rows import dict_row
from psycopg_pool import AsyncConnectionPool, PoolTimeout

from spyglass.errors import StoreUnavailable
from spyglass.history.store import assistant_values, public_message, stamp, utc_now
from spyglass.privacy.provenance import Source
from spyglass.state.postgres.connection import (
    POOL_WAIT_SECONDS,
    STATEMENT_SECONDS,
    not_answering,
    unavailable,
)

logger = logging.getLogger(__name__)

#: Saves of answers kept in memory while PostgreSQL cannot take them (one per turn).
SAVE_QUEUE_CAPACITY = 10000

#: An answer's save: an upsert by turn, so writing it twice leaves it written once.
SAVE_ASSISTANT = (
    "WITH c AS (UPDATE conversations SET updated_at = %s WHERE id = %s RETURNING id) "
    "INSERT INTO messages(conversation_id, turn_id, role, text, reasoning, events, "
    "citations, exchanges, receipt, created_at) "
    "SELECT id, %s, 'assistant', %s, %s, %s, %s, %s, %s, %s "
    "FROM c ON CONFLICT (turn_id, role) DO UPDATE SET text = excluded.text, "
    "reasoning = excluded.reasoning, events = excluded.events, "
    "citations = excluded.citations, exchanges = excluded.exchanges, "
    "receipt = excluded.receipt"
)


def search_query(text: str) -> str | None:
    """Free text → a tsquery matching every word (as a prefix), with no tsquery syntax."""
    words = re.findall(r"\w+", text.lower())
    return " & ".join(f"'{word}':*" for word in words[:20]) or None


class PostgresHistory:
    """Conversations in PostgreSQL, through an async connection pool.

    An answer's save outlives a restart of the server: a connection the server dropped is
    tried once more, and a save that still fails waits in a queue, written in order by a
    background task once PostgreSQL is back (as the audit log's events are), so the turn
    is never left stored as it was at its pause while its person was told more."""

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
        #: Saves not yet written, by turn, oldest first; a later save of a turn replaces its
        #: earlier one (and goes to the back), so a turn's saves land in order.
        self._queued: dict[str, tuple[Any, ...]] = {}
        self._writer: asyncio.Task[None] | None = None

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

    async def _run(
        self, sql: str, params: tuple[Any, ...] = (), *, fetch: bool = True, again: bool = False
    ) -> Any:
        """Run one statement. ``again``: the statement may run twice (an upsert), so a
        connection the server dropped is tried once more, as the policy and audit
        connection's is; a statement that outlived its bound is not."""
        try:
            return await self._run_once(sql, params, fetch=fetch)
        except psycopg.OperationalError as exc:
            if not again:
                raise unavailable(exc) from exc
        try:
            return await self._run_once(sql, params, fetch=fetch)
        except psycopg.OperationalError as exc:
            raise unavailable(exc) from exc

    async def _run_once(self, sql: str, params: tuple[Any, ...], *, fetch: bool) -> Any:
        """One try; a dropped connection is raised as psycopg's ``OperationalError``."""
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
        except PoolTimeout as exc:
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
        params = (now, conversation_id, turn_id, *values, now)
        if self._queued:
            # Behind the saves already waiting: none of them may land over this one.
            self._queue(turn_id, params)
            return
        try:
            await self._run(SAVE_ASSISTANT, params, fetch=False, again=True)
        except StoreUnavailable as exc:
            logger.warning("answer not yet saved to history (%s); queued", exc.message)
            self._queue(turn_id, params)

    def _queue(self, turn_id: str, params: tuple[Any, ...]) -> None:
        if turn_id not in self._queued and len(self._queued) >= SAVE_QUEUE_CAPACITY:
            logger.error("history queue full (PostgreSQL unreachable for long): answer dropped")
            return
        self._queued.pop(turn_id, None)
        self._queued[turn_id] = params
        if self._writer is None or self._writer.done():
            self._writer = asyncio.get_running_loop().create_task(self._write_queued())

    async def _write_queued(self) -> None:
        """Write the queued saves in order, backing off up to 5 s while PostgreSQL is away;
        nothing is dropped (but a save the server refuses outright, which is logged)."""
        delay = 0.1
        while self._queued:
            turn_id, params = next(iter(self._queued.items()))
            try:
                await self._run(SAVE_ASSISTANT, params, fetch=False, again=True)
            except StoreUnavailable as exc:
                logger.warning("queued answers not yet saved to history (%s)", exc.message)
                await asyncio.sleep(delay)
                delay = min(delay * 2, 5.0)
                continue
            except Exception:
                logger.exception("history refused a queued answer; dropped")
            if self._queued.get(turn_id) is params:
                del self._queued[turn_id]
            delay = 0.1

    async def flush(self) -> bool:
        """Wait until every queued save is written; whether none is left."""
        if self._writer is not None:
            await asyncio.shield(self._writer)
        return not self._queued

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
        if self._writer is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.flush(), self.timeout * 2)
            self._writer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._writer
            if self._queued:
                logger.error(
                    "%d answer(s) not saved to history: PostgreSQL was away", len(self._queued)
                )
            self._writer = None
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
