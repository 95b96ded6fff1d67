"""Pages a turn has read, kept where any process carrying the turn on can find them.

A turn paused for approval may resume in another process (or after a restart, or simply
from its stored JSON), and ``web.fetch`` reads later parts of a page from what it already
fetched instead of fetching it again. The turn's own ``cache`` is in memory and not part of
the paused turn, so pages also go to a :class:`PageCache`:

- in process (:class:`InMemoryPageCache`): the default for code that wires no stores;
- embedded: the ``page_cache`` table in ``state.db`` (:class:`SQLitePageCache`), shared by
  the processes of one machine;
- shared: Redis (:class:`RedisPageCache`), with a TTL on every entry.

Entries are keyed by a digest of the conversation, the turn and the URL: a page read in one
turn is found only by that same turn, never by another turn or conversation, and the key
shows no URL. Every backend bounds an entry's size (``state.page_cache_max_bytes``) and its
life (``state.page_cache_seconds``); the embedded ones also bound their total size.
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from spyglass.core.context import SeamKey
from spyglass.settings import Settings

if TYPE_CHECKING:
    from spyglass.state.redis import RedisState
    from spyglass.state.sqlite.statefile import StateDB

#: The embedded caches hold at most this many entries' worth of the per-entry bound.
TOTAL_ENTRIES = 16


class PageCache(Protocol):
    """Pages by turn and URL. ``scope`` names the turn (conversation and turn id)."""

    async def get(self, scope: str, url: str) -> bytes | None: ...

    async def put(self, scope: str, url: str, value: bytes) -> None:
        """Keep ``value``; one larger than the bound is not kept (the page is fetched again)."""
        ...


def cache_key(scope: str, url: str) -> str:
    """The digest an entry is kept under: no URL, no conversation id in the clear."""
    return hashlib.sha256(f"{scope}\0{url}".encode("utf-8", "surrogatepass")).hexdigest()


class InMemoryPageCache:
    """Least recently used entries dropped first; expired ones on the way."""

    def __init__(
        self, *, max_entry_bytes: int, ttl_seconds: float, clock: Callable[[], float] = time.time
    ) -> None:
        self.max_entry_bytes = max_entry_bytes
        self.max_total_bytes = max_entry_bytes * TOTAL_ENTRIES
        self.ttl = ttl_seconds
        self._clock = clock
        self._items: OrderedDict[str, tuple[float, bytes]] = OrderedDict()
        self._total = 0
        self._lock = threading.Lock()

    async def get(self, scope: str, url: str) -> bytes | None:
        key = cache_key(scope, url)
        with self._lock:
            item = self._items.get(key)
            if item is None:
                return None
            if item[0] <= self._clock():
                self._drop(key)
                return None
            self._items.move_to_end(key)
            return item[1]

    async def put(self, scope: str, url: str, value: bytes) -> None:
        if len(value) > self.max_entry_bytes:
            return
        key = cache_key(scope, url)
        with self._lock:
            self._drop(key)
            self._items[key] = (self._clock() + self.ttl, value)
            self._total += len(value)
            now = self._clock()
            for stale in [k for k, (until, _) in self._items.items() if until <= now]:
                self._drop(stale)
            while self._total > self.max_total_bytes:
                self._drop(next(iter(self._items)))

    def _drop(self, key: str) -> None:
        item = self._items.pop(key, None)
        if item is not None:
            self._total -= len(item[1])


class SQLitePageCache:
    """The ``page_cache`` table of ``state.db``: oldest entries dropped past the total bound."""

    def __init__(self, db: StateDB, *, max_entry_bytes: int, ttl_seconds: float) -> None:
        self.db = db
        self.max_entry_bytes = max_entry_bytes
        self.max_total_bytes = max_entry_bytes * TOTAL_ENTRIES
        self.ttl = ttl_seconds

    async def get(self, scope: str, url: str) -> bytes | None:
        key = cache_key(scope, url)
        now = self.db.clock()
        row = await self.db.run(
            lambda db: db.execute(
                "SELECT value FROM page_cache WHERE key = ? AND expires_at > ?", (key, now)
            ).fetchone()
        )
        return None if row is None else bytes(row[0])

    async def put(self, scope: str, url: str, value: bytes) -> None:
        if len(value) > self.max_entry_bytes:
            return
        key = cache_key(scope, url)
        now = self.db.clock()
        bound = self.max_total_bytes

        def work(db: sqlite3.Connection) -> None:
            db.execute("DELETE FROM page_cache WHERE expires_at <= ?", (now,))
            db.execute(
                "INSERT OR REPLACE INTO page_cache(key, value, size, expires_at) VALUES (?,?,?,?)",
                (key, value, len(value), now + self.ttl),
            )
            # Past the total bound, the entries that expire first go first.
            db.execute(
                "DELETE FROM page_cache WHERE key IN (SELECT key FROM (SELECT key, "
                "SUM(size) OVER (ORDER BY expires_at DESC, key) AS running FROM page_cache) "
                "WHERE running > ?)",
                (bound,),
            )

        await self.db.run(self.db.transaction(work))


class RedisPageCache:
    """One Redis string per entry, expiring on its own."""

    def __init__(self, state: RedisState, *, max_entry_bytes: int, ttl_seconds: float) -> None:
        self.state = state
        self.max_entry_bytes = max_entry_bytes
        self.ttl_ms = max(1, int(ttl_seconds * 1000))

    @staticmethod
    def _key(scope: str, url: str) -> str:
        from spyglass.state.redis import PREFIX

        return PREFIX + "page:" + cache_key(scope, url)

    async def get(self, scope: str, url: str) -> bytes | None:
        key = self._key(scope, url)
        value: bytes | str | None = await self.state.call(lambda r: r.get(key))
        if value is None:
            return None
        return value if isinstance(value, bytes) else value.encode("utf-8", "surrogateescape")

    async def put(self, scope: str, url: str, value: bytes) -> None:
        if len(value) > self.max_entry_bytes:
            return
        key = self._key(scope, url)
        await self.state.call(lambda r: r.set(key, value, px=self.ttl_ms))


def _in_process(settings: Settings) -> PageCache:
    return InMemoryPageCache(
        max_entry_bytes=settings.state.page_cache_max_bytes,
        ttl_seconds=settings.state.page_cache_seconds,
    )


#: Where ``web.fetch`` keeps the pages of a turn; the runtime provides the stores' own.
PAGE_CACHE: SeamKey[PageCache] = SeamKey("page_cache", _in_process)
