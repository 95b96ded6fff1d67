"""The audit log in PostgreSQL: an append-only table written by a background thread."""

from __future__ import annotations

import atexit
import json
import logging
import queue
import threading
from collections.abc import Mapping
from typing import Any

import psycopg

from spyglass.core.audit import refuse_other_fields
from spyglass.errors import StoreUnavailable
from spyglass.state.postgres.connection import connect
from spyglass.state.postgres.loopconn import LoopConnection

logger = logging.getLogger(__name__)


class PostgresAudit:
    """The audit log as an append-only table. ``record`` queues; a thread writes in order;
    ``arecord`` returns once its event is written."""

    def __init__(self, url: str, *, timeout: float, capacity: int = 10000) -> None:
        self.url = url
        self.timeout = timeout
        self._queue: queue.Queue[dict[str, Any] | None] = queue.Queue(capacity)
        #: Whether the last write failed (PostgreSQL unreachable): answers do not wait then.
        self._failing = False
        self._loop = LoopConnection(url, timeout=timeout)
        self._thread: threading.Thread | None = None
        self._start_lock = threading.Lock()
        self._db: psycopg.Connection[Any] | None = None
        self._pending = 0
        self._idle = threading.Condition()
        self._exit_hook = False

    def record(self, event: Mapping[str, Any]) -> None:
        self._enqueue(event)

    async def arecord(self, event: Mapping[str, Any]) -> None:
        """Record ``event`` and return once it is in the table, so the answer it records is
        sent after it, as the file log's is. Written on the event loop's own connection; while
        PostgreSQL cannot be reached the event waits in the writer thread's queue (written
        once it is back) and the answer does not wait for it."""
        refuse_other_fields(event)
        if not self._failing:
            try:
                await self._loop.rows(
                    b"INSERT INTO audit_events(event) VALUES (%s)", (json.dumps(dict(event)),)
                )
                return
            except StoreUnavailable as exc:
                logger.warning("audit event not yet written (%s); queued", exc.message)
        self._enqueue(event)

    def _enqueue(self, event: Mapping[str, Any]) -> None:
        refuse_other_fields(event)
        self._ensure_thread()
        with self._idle:
            self._pending += 1
        try:
            self._queue.put_nowait(dict(event))
        except queue.Full:
            with self._idle:
                self._pending -= 1
            logger.error("audit queue full (PostgreSQL unreachable for long): event dropped")

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
        self._loop.close()
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
            event = self._queue.get()
            if event is None:
                return
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
                    if self._db is not None:
                        self._db.close()
                        self._db = None
                    # Back off, up to 5 s, until PostgreSQL is back; nothing is dropped.
                    stop.wait(delay)
                    delay = min(delay * 2, 5.0)
            with self._idle:
                self._pending -= 1
                self._idle.notify_all()
