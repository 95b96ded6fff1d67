"""Connections to PostgreSQL, and how their failures become StoreUnavailable."""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import psycopg

from spyglass.errors import StoreUnavailable

T = TypeVar("T")

#: How long a request waits for a pooled connection before PostgreSQL counts as unavailable.
POOL_WAIT_SECONDS = 30.0

#: How long one statement may take, its wait for a connection included, before PostgreSQL
#: counts as unavailable: a server that takes a statement and never answers (stopped, stuck)
#: must not hold every request behind it for ever. As long as a request may wait for a
#: pooled connection.
STATEMENT_SECONDS = POOL_WAIT_SECONDS


def unavailable(exc: BaseException) -> StoreUnavailable:
    return StoreUnavailable(
        "postgresql", f"PostgreSQL cannot be reached ({type(exc).__name__}: {exc})"
    )


def not_answering(seconds: float) -> StoreUnavailable:
    """What a statement that outlived its bound (:data:`STATEMENT_SECONDS`) reports."""
    return StoreUnavailable("postgresql", f"PostgreSQL did not answer within {seconds:g} s")


def connect(url: str, timeout: float) -> psycopg.Connection[Any]:
    try:
        return psycopg.connect(url, connect_timeout=max(1, round(timeout)), autocommit=True)
    except psycopg.Error as exc:
        raise unavailable(exc) from exc


def interrupt(db: psycopg.Connection[Any]) -> None:
    """End any wait on ``db``'s socket with an error (from any thread): a thread blocked on a
    server that stopped answering hears nothing else, since the kernel still acknowledges
    every byte."""
    if db.closed:
        return
    try:
        # A duplicate of libpq's descriptor, so libpq's own stays open until it closes it.
        with socket.socket(fileno=os.dup(db.pgconn.socket)) as sock:
            sock.shutdown(socket.SHUT_RDWR)
    except (OSError, psycopg.Error):
        pass  # already closed: nothing is waiting on it


@contextmanager
def answered_within(db: psycopg.Connection[Any], seconds: float) -> Iterator[threading.Event]:
    """Interrupt ``db`` (:func:`interrupt`) if the block outlives ``seconds``; the event
    says whether it did. For a blocking caller with no event loop to bound it."""
    fired = threading.Event()

    def expire() -> None:
        fired.set()
        interrupt(db)

    timer = threading.Timer(seconds, expire)
    timer.daemon = True
    timer.start()
    try:
        yield fired
    finally:
        timer.cancel()


class BlockingConnection:
    """One autocommit connection for blocking callers (a worker thread, the command line),
    used by one at a time: made on first use and once more when the server dropped it.

    Every use gives up after ``statement_seconds`` (:func:`answered_within`) and counts as
    PostgreSQL unavailable; a use that ran out is not tried again, so the caller's "it
    failed" holds: what it sent is never carried out behind its back by a second try.
    """

    def __init__(self, url: str, *, timeout: float, statement_seconds: float) -> None:
        self.url = url
        self.timeout = timeout
        self.statement_seconds = statement_seconds
        self._lock = threading.Lock()
        self._db: psycopg.Connection[Any] | None = None

    def run(self, work: Callable[[psycopg.Connection[Any]], T]) -> T:
        """``work(connection)``, what it returns."""
        with self._lock:
            for attempt in (1, 2):
                expired: threading.Event | None = None
                try:
                    if self._db is None or self._db.closed:
                        self._db = connect(self.url, self.timeout)
                    with answered_within(self._db, self.statement_seconds) as expired:
                        return work(self._db)
                except psycopg.OperationalError as exc:
                    # A connection the server dropped: one fresh try, then report.
                    if self._db is not None:
                        self._db.close()
                    self._db = None
                    if expired is not None and expired.is_set():
                        raise not_answering(self.statement_seconds) from exc
                    if attempt == 2:
                        raise unavailable(exc) from exc
        raise AssertionError("unreachable")  # pragma: no cover

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None
