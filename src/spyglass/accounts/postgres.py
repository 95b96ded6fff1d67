"""The accounts store on the shared backend: PostgreSQL, next to history and the audit log."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import Any, TypeVar

import psycopg

from spyglass.accounts.runner import Execute
from spyglass.core.drive import blocking, direct
from spyglass.errors import StoreUnavailable
from spyglass.state.postgres import connect, unavailable
from spyglass.state.postgres.connection import STATEMENT_SECONDS, interrupt, not_answering
from spyglass.state.postgres.loopconn import LoopConnection

T = TypeVar("T")


class PostgresRunner:
    """Runs a unit of work in one transaction on a worker thread, over one connection that
    is replaced when the server dropped it. A lone statement runs without a transaction
    around it, on the event loop's own connection (:class:`LoopConnection`): one trip to
    the server and no thread, where a transaction is three trips and a thread.

    Either gives up after ``statement_seconds`` and counts as PostgreSQL unavailable: a
    server that takes a statement and never answers (stopped, stuck) fails the call closed
    instead of holding it."""

    dialect = "postgresql"

    def __init__(
        self, url: str, *, timeout: float, statement_seconds: float = STATEMENT_SECONDS
    ) -> None:
        self.url = url
        self.timeout = timeout
        self.statement_seconds = statement_seconds
        self._lock = threading.Lock()
        self._db: psycopg.Connection[Any] | None = None
        self._loop = LoopConnection(url, timeout=timeout, statement_seconds=statement_seconds)

    # Work of several statements runs on the stores' worker threads (spyglass.core.lane),
    # whose hand-off costs about half the CPU of asyncio.to_thread's.

    async def transaction(self, work: Callable[[Execute], T]) -> T:
        return await self._bounded(work)

    async def read(self, work: Callable[[Execute], T]) -> T:
        # PostgreSQL's reads take no lock a writer waits for: the same transaction will do.
        return await self._bounded(work)

    async def _bounded(self, work: Callable[[Execute], T]) -> T:
        abandoned = threading.Event()
        if direct():  # a command on the calling thread: there is no loop to bound it with
            return await blocking(self._run, work, abandoned)
        try:
            async with asyncio.timeout(self.statement_seconds):
                return await blocking(self._run, work, abandoned)
        except TimeoutError:
            # The worker thread waits on the server's socket, where nothing reaches it;
            # shutting the socket down ends that wait with an error, and the abandoned work
            # is neither tried again nor started later, so the caller's "unavailable" holds.
            abandoned.set()
            self._interrupt()
            raise not_answering(self.statement_seconds) from None

    def _interrupt(self) -> None:
        db = self._db
        if db is not None:
            interrupt(db)

    async def statement(self, sql: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        # The store writes placeholders the SQLite way (see _executor).
        return await self._loop.rows(sql.replace("?", "%s").encode(), params)

    def _run(self, work: Callable[[Execute], T], abandoned: threading.Event) -> T:
        with self._lock:
            for attempt in (1, 2):
                if abandoned.is_set():
                    raise StoreUnavailable("postgresql", "the call stopped waiting")
                try:
                    if self._db is None or self._db.closed:
                        self._db = connect(self.url, self.timeout)
                    db = self._db
                    with db.transaction():
                        return work(_executor(db))
                except psycopg.OperationalError as exc:
                    # A connection the server dropped: one fresh try, then report.
                    if self._db is not None:
                        self._db.close()
                    self._db = None
                    if attempt == 2:
                        raise unavailable(exc) from exc
        raise AssertionError("unreachable")  # pragma: no cover

    def close(self) -> None:
        self._loop.close()
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None


def _executor(db: psycopg.Connection[Any]) -> Execute:
    def execute(sql: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        # The store writes placeholders the SQLite way; none of its statements has a
        # literal question mark.
        cursor = db.execute(sql.replace("?", "%s").encode(), params)
        return cursor.fetchall() if cursor.description else []

    return execute
