"""How the accounts store reaches its database: one unit of work per transaction."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, TypeVar

T = TypeVar("T")

#: ``execute(sql, params)`` → rows; placeholders are written ``?``.
Execute = Callable[[str, tuple[Any, ...]], list[tuple[Any, ...]]]


class Runner(Protocol):
    """Runs ``work`` in one transaction on a worker thread; raises ``StoreUnavailable``."""

    #: ``"sqlite"`` or ``"postgresql"``: which SQL the store may write beyond what both take.
    dialect: str

    async def transaction(self, work: Callable[[Execute], T]) -> T: ...

    async def read(self, work: Callable[[Execute], T]) -> T:
        """``work`` that only reads, in one consistent snapshot that takes no write lock
        (so it neither waits for another process's write nor holds one up)."""
        ...

    async def statement(self, sql: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        """One statement on its own, and its rows: atomic, and what it reads is one
        consistent snapshot, as any single statement is. No transaction is opened around it:
        on PostgreSQL a ``BEGIN`` and a ``COMMIT`` would each be another trip to the server."""
        ...
