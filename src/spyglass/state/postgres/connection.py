"""Connections to PostgreSQL, and how their failures become StoreUnavailable."""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg

from spyglass.errors import StoreUnavailable

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
