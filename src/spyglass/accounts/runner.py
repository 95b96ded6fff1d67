"""How the accounts store reaches its database: one unit of work per transaction."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, TypeVar

T = TypeVar("T")

#: ``execute(sql, params)`` → rows; placeholders are written ``?``.
Execute = Callable[[str, tuple[Any, ...]], list[tuple[Any, ...]]]


class Runner(Protocol):
    """Runs ``work`` in one transaction on a worker thread; raises ``StoreUnavailable``."""

    async def transaction(self, work: Callable[[Execute], T]) -> T: ...

    async def read(self, work: Callable[[Execute], T]) -> T:
        """``work`` that only reads, in one consistent snapshot that takes no write lock
        (so it neither waits for another process's write nor holds one up)."""
        ...
