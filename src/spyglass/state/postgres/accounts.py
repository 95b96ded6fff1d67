"""The accounts store on the shared backend: PostgreSQL, next to history and the audit log."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import psycopg

from spyglass.accounts.runner import Execute
from spyglass.core.workers import STORES
from spyglass.state.postgres.connection import STATEMENT_SECONDS, BlockingConnection
from spyglass.state.postgres.loopconn import LoopConnection

T = TypeVar("T")


class PostgresRunner:
    """Runs a unit of work in one transaction on a worker thread, over one connection that
    is replaced when the server dropped it (:class:`BlockingConnection`). A lone statement
    runs without a transaction around it, on the event loop's own connection
    (:class:`LoopConnection`): one trip to the server and no thread, where a transaction is
    three trips and a thread.

    Either gives up after ``statement_seconds`` and counts as PostgreSQL unavailable: a
    server that takes a statement and never answers (stopped, stuck) fails the call closed
    instead of holding it."""

    dialect = "postgresql"

    def __init__(
        self, url: str, *, timeout: float, statement_seconds: float = STATEMENT_SECONDS
    ) -> None:
        self.url = url
        self.timeout = timeout
        self._db = BlockingConnection(url, timeout=timeout, statement_seconds=statement_seconds)
        self._loop = LoopConnection(url, timeout=timeout, statement_seconds=statement_seconds)

    # Work of several statements runs on the stores' worker threads (spyglass.core.workers),
    # whose hand-off costs about half the CPU of asyncio.to_thread's.

    async def transaction(self, work: Callable[[Execute], T]) -> T:
        return await STORES.run(self._db.run, lambda db: _in_transaction(db, work))

    async def read(self, work: Callable[[Execute], T]) -> T:
        # PostgreSQL's reads take no lock a writer waits for: the same transaction will do.
        return await self.transaction(work)

    async def statement(self, sql: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        # The store writes placeholders the SQLite way (see _executor).
        return await self._loop.rows(sql.replace("?", "%s").encode(), params)

    def close(self) -> None:
        self._loop.close()
        self._db.close()


def _in_transaction(db: psycopg.Connection[Any], work: Callable[[Execute], T]) -> T:
    with db.transaction():
        return work(_executor(db))


def _executor(db: psycopg.Connection[Any]) -> Execute:
    def execute(sql: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        # The store writes placeholders the SQLite way; none of its statements has a
        # literal question mark.
        cursor = db.execute(sql.replace("?", "%s").encode(), params)
        return cursor.fetchall() if cursor.description else []

    return execute
