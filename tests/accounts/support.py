"""The accounts store on each real backend, for the tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from spyglass.accounts.store import AccountStore


class Clock:
    """Wall-clock time the test moves by hand."""

    def __init__(self, now: float = 1_780_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request: pytest.FixtureRequest, tmp_path: Path, clock: Clock) -> Iterator[AccountStore]:
    """An upgraded accounts store on SQLite (the state file) and on PostgreSQL."""
    if request.param == "sqlite":
        from spyglass.state.sqlite.accounts import SQLiteRunner
        from spyglass.state.sqlite.statefile import StateDB

        db = StateDB(tmp_path / "state.db", clock)
        db.upgrade()
        yield AccountStore(SQLiteRunner(db), clock)
        db.close()
        return
    from spyglass.state.postgres import upgrade
    from spyglass.state.postgres.accounts import PostgresRunner

    url = request.getfixturevalue("database_url")
    upgrade(url, 5)
    runner = PostgresRunner(url, timeout=5)
    yield AccountStore(runner, clock)
    runner.close()
