"""The audit log in PostgreSQL: an append-only table written by a background thread."""

from __future__ import annotations

import asyncio
import atexit
import json
import logging
import queue
import threading
from collections.abc import Callable, Mapping
from typing import Any

import psycopg

from spyglass.core.audit import AUDIT_FIELDS
from spyglass.errors import StoreUnavailable
from spyglass.state.postgres.connection import connect

logger = logging.getLogger(__name__)


#: Called on the writer thread once an event is written (True) or has failed to be (False).
Written = Callable[[bool], None]


class PostgresAudit:
    """The audit log as an append-only table. ``record`` queues; a thread writes in order;
    ``arecord`` returns once its event is written."""

    def __init__(self, url: str, *, timeout: float, capacity: int = 10000) -> None:
        self.url = url
        self.timeout = timeout
        self._queue: queue.Queue[tuple[dict[str, Any], Written | None] | None] = queue.Queue(
            capacity
        )
        #: Whether the last write failed (PostgreSQL unreachable): answers do not wait then.
        self._failing = False
        self._thread: threading.Thread | None = None
        self._start_lock = threading.Lock()
        self._db: psycopg.Connection[Any] | None = None
        self._pending = 0
        self._idle = threading.Condition()
        self._exit_hook = False

    def record(self, event: Mapping[str, Any]) -> None:
        self._enqueue(event, None)

    async def arecord(self, event: Mapping[str, Any]) -> None:
        """Record ``event`` and wait until it is in the table, so the answer it records is
        sent after it, as the file log's is. While PostgreSQL cannot be reached the event
        waits in the queue (written once it is back) and the answer does not wait for it."""
        loop = asyncio.get_running_loop()
        done: asyncio.Future[bool] = loop.create_future()

        def written(ok: bool) -> None:  # on the writer thread
            loop.call_soon_threadsafe(_settle, done, ok)

        queued = self._enqueue(event, written)
        if not queued or self._failing:
            return
        try:
            async with asyncio.timeout(self.timeout):
                await done
        except TimeoutError:
            logger.warning(
                "audit event not yet written after %.1f s; it stays queued", self.timeout
            )

    def _enqueue(self, event: Mapping[str, Any], written: Written | None) -> bool:
        unknown = set(event) - set(AUDIT_FIELDS)
        if unknown:
            raise ValueError(f"audit events may not carry {sorted(unknown)}")
        self._ensure_thread()
        with self._idle:
            self._pending += 1
        try:
            self._queue.put_nowait((dict(event), written))
        except queue.Full:
            with self._idle:
                self._pending -= 1
            logger.error("audit queue full (PostgreSQL unreachable for long): event dropped")
            return False
        return True

    def flush(self, timeout: float) -> bool:
        """Wait until every queued event is written; ``False`` if that took too long."""
        with self._idle:
            return self._idle.wait_for(lambda: self._pending == 0, timeout)

    def tail(self, count: int) -> list[dict[str, Any]]:
        if count <= 0:
            return []
        with connect(self.url, self.timeout) as db:
            rows = db.execute(
                "SELECT event FROM (SELECT id, event FROM audit_events ORDER BY id DESC LIMIT %s) "
                "newest ORDER BY id",
                (count,),
            ).fetchall()
        return [row[0] for row in rows]

    def close(self, timeout: float = 5.0) -> None:
        self.flush(timeout)
        if self._thread is not None:
            self._queue.put(None)
            self._thread.join(timeout)

    def _ensure_thread(self) -> None:
        with self._start_lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(
                    target=self._write_loop, name="spyglass-audit", daemon=True
                )
                self._thread.start()
                if not self._exit_hook:
                    # A short-lived process (the CLI) writes its events before it exits.
                    atexit.register(self.flush, self.timeout * 2)
                    self._exit_hook = True

    def _write_loop(self) -> None:
        stop = threading.Event()
        while True:
            item = self._queue.get()
            if item is None:
                return
            event, written = item
            delay = 0.1
            while True:
                try:
                    if self._db is None or self._db.closed:
                        self._db = connect(self.url, self.timeout)
                    self._db.execute(
                        "INSERT INTO audit_events(event) VALUES (%s)", (json.dumps(event),)
                    )
                    self._failing = False
                    break
                except (StoreUnavailable, psycopg.Error) as exc:
                    logger.warning("audit event not yet written (%s); retrying", exc)
                    self._failing = True
                    if written is not None:
                        # Its answer goes out; the event itself is written once PostgreSQL is back.
                        written(False)
                        written = None
                    if self._db is not None:
                        self._db.close()
                        self._db = None
                    # Back off, up to 5 s, until PostgreSQL is back; nothing is dropped.
                    stop.wait(delay)
                    delay = min(delay * 2, 5.0)
            if written is not None:
                written(True)
            with self._idle:
                self._pending -= 1
                self._idle.notify_all()


def _settle(done: asyncio.Future[bool], ok: bool) -> None:
    if not done.done():  # the answer may have stopped waiting (timed out, cancelled)
        done.set_result(ok)
