"""Connections to PostgreSQL, and how their failures become StoreUnavailable."""

from __future__ import annotations

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
