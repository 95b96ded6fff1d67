"""The accounts store on the embedded backend: the SQLite state file (``state.db``)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any, TypeVar

from spyglass.accounts.runner import Execute
from spyglass.state.sqlite.statefile import StateDB

T = TypeVar("T")


class SQLiteRunner:
    """Runs a unit of work in ``BEGIN IMMEDIATE`` … ``COMMIT`` on the state file, off-loop;
    reads in ``BEGIN DEFERRED`` (a WAL snapshot: no write lock taken or waited for)."""

    dialect = "sqlite"

    def __init__(self, db: StateDB) -> None:
        self.db = db

    async def transaction(self, work: Callable[[Execute], T]) -> T:
        return await self.db.run(self.db.transaction(_bound(work)))

    async def read(self, work: Callable[[Execute], T]) -> T:
        return await self.db.run(self.db.snapshot(_bound(work)))

    async def statement(self, sql: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        # The connection is in autocommit mode: a lone statement is its own transaction
        # (a read, its own WAL snapshot; a write, under the write lock while it runs).
        return await self.db.run(lambda db: db.execute(sql, params).fetchall())


def _bound(work: Callable[[Execute], T]) -> Callable[[sqlite3.Connection], T]:
    def run(db: sqlite3.Connection) -> T:
        def execute(sql: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
            return db.execute(sql, params).fetchall()

        return work(execute)

    return run
