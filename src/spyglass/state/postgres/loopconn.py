"""One PostgreSQL connection per event loop, for the statements on every request's path.

A statement on a sync connection goes through a worker thread: the loop hands it over, the
thread wakes, sends, waits, and hands the rows back to the loop, which wakes again. On an
:class:`psycopg.AsyncConnection` the loop sends the statement and waits on the socket
itself: two hand-offs fewer, about a third less time per statement (docs/benchmarks.md).
Statements from several tasks queue on the one connection, as they did on the sync one.
"""

from __future__ import annotations

import asyncio
from typing import Any

import psycopg

from spyglass.state.postgres.connection import STATEMENT_SECONDS, not_answering, unavailable


class LoopConnection:
    """An autocommit :class:`psycopg.AsyncConnection` per event loop (the CLI runs a loop
    per call), made on first use and again when the server dropped it."""

    def __init__(
        self, url: str, *, timeout: float, statement_seconds: float = STATEMENT_SECONDS
    ) -> None:
        self.url = url
        self.timeout = timeout
        self.statement_seconds = statement_seconds
        self._connections: dict[asyncio.AbstractEventLoop, psycopg.AsyncConnection[Any]] = {}

    async def rows(self, sql: bytes, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        """The rows of one statement (none for a statement that answers none). A caller that
        is cancelled stops waiting; the statement itself runs to its end, so the connection
        is never left in the middle of one."""
        return await asyncio.shield(self._rows(sql, params))

    async def _rows(self, sql: bytes, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        for attempt in (1, 2):
            try:
                async with asyncio.timeout(self.statement_seconds):
                    db = await self._connection()
                    cursor = await db.execute(sql, params)
                    return await cursor.fetchall() if cursor.description else []
            except TimeoutError:
                # psycopg has tried to cancel the statement and, failing that, closed the
                # connection; either way its state is unknown, so it goes.
                self._drop(asyncio.get_running_loop())
                raise not_answering(self.statement_seconds) from None
            except psycopg.OperationalError as exc:
                # A connection the server dropped: one fresh try, then report.
                self._drop(asyncio.get_running_loop())
                if attempt == 2:
                    raise unavailable(exc) from exc
        raise AssertionError("unreachable")  # pragma: no cover

    async def _connection(self) -> psycopg.AsyncConnection[Any]:
        loop = asyncio.get_running_loop()
        db = self._connections.get(loop)
        if db is not None and not db.closed:
            return db
        self._forget_closed_loops()
        made = await psycopg.AsyncConnection.connect(
            self.url, connect_timeout=max(1, round(self.timeout)), autocommit=True
        )
        db = self._connections.get(loop)
        if db is not None and not db.closed:  # another task connected meanwhile
            made.pgconn.finish()
            return db
        self._connections[loop] = made
        return made

    def _drop(self, loop: asyncio.AbstractEventLoop) -> None:
        db = self._connections.pop(loop, None)
        if db is not None and not db.closed:
            db.pgconn.finish()

    def _forget_closed_loops(self) -> None:
        for loop in [loop for loop in self._connections if loop.is_closed()]:
            self._drop(loop)

    def close(self) -> None:
        """Close every loop's connection (from any thread, with or without its loop)."""
        for loop in list(self._connections):
            self._drop(loop)
