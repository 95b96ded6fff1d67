"""Connections to PostgreSQL, and how their failures become StoreUnavailable."""

from __future__ import annotations

from typing import Any

import psycopg

from spyglass.errors import StoreUnavailable

#: How long a request waits for a pooled connection before PostgreSQL counts as unavailable.
POOL_WAIT_SECONDS = 30.0


def unavailable(exc: BaseException) -> StoreUnavailable:
    return StoreUnavailable(
        "postgresql", f"PostgreSQL cannot be reached ({type(exc).__name__}: {exc})"
    )


def connect(url: str, timeout: float) -> psycopg.Connection[Any]:
    try:
        return psycopg.connect(url, connect_timeout=max(1, round(timeout)), autocommit=True)
    except psycopg.Error as exc:
        raise unavailable(exc) from exc
