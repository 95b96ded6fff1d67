"""The owner's switches in PostgreSQL, read fresh on every call; unreadable means off."""

from __future__ import annotations

import logging
from typing import Any

from spyglass.core.outcome import Code
from spyglass.core.policy import KNOWN_KEYS, PolicyProblem, PolicySnapshot, approval_problem
from spyglass.core.policy import default as policy_default
from spyglass.errors import StoreUnavailable
from spyglass.state.postgres.connection import STATEMENT_SECONDS, BlockingConnection
from spyglass.state.postgres.loopconn import LoopConnection

logger = logging.getLogger(__name__)

#: An approval mode set at run time is a row ``approvals.<key>`` (``enabled``: flagged).
APPROVAL_ROW = "approvals."


class PostgresPolicy:
    """The owner's switches in a table, read fresh on every call. Unreadable means off.

    Its calls block on the network: coroutines read it with :meth:`asnapshot`, on the event
    loop's own connection (:func:`spyglass.core.policy.read_snapshot`); ``blocking`` says to
    read it on a worker thread where that is not possible.
    """

    blocking = True

    def __init__(
        self, url: str, *, timeout: float, statement_seconds: float = STATEMENT_SECONDS
    ) -> None:
        self.url = url
        self.timeout = timeout
        # Blocking callers (the policy routes, the command line) read and set it here.
        self._db = BlockingConnection(url, timeout=timeout, statement_seconds=statement_seconds)
        self._loop = LoopConnection(url, timeout=timeout, statement_seconds=statement_seconds)
        # Set while the table cannot be read: an outage is logged once, not on every request.
        self._down = False

    def _unreachable(self, exc: StoreUnavailable, what: str) -> None:
        """Logs the first failed read of an outage; later ones until a read succeeds are quiet."""
        if not self._down:
            self._down = True
            logger.warning("policy cannot be read (%s); %s stays off", exc.message, what)

    def _reachable(self) -> None:
        if self._down:
            self._down = False
            logger.info("policy can be read again")

    def _query(self, sql: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        return self._db.run(lambda db: db.execute(sql.encode(), params).fetchall())

    def read(self) -> dict[str, bool]:
        try:
            rows = self._query("SELECT key, enabled FROM policy", ())
        except StoreUnavailable as exc:
            self._unreachable(exc, "every switch")
            return dict.fromkeys(KNOWN_KEYS, False)
        self._reachable()
        # A switch never set has its default (search and fetch on under web access).
        values = {key: policy_default(key) for key in KNOWN_KEYS}
        values.update({key: enabled is True for key, enabled in rows if key in values})
        return values

    def snapshot(self) -> PolicySnapshot:
        """Every switch in one query; unreadable means every switch off, and says why."""
        try:
            rows = self._query("SELECT key, enabled FROM policy", ())
        except StoreUnavailable as exc:
            self._unreachable(exc, "every switch")
            return _unreadable(exc)
        self._reachable()
        return _snapshot(rows)

    async def asnapshot(self) -> PolicySnapshot:
        """:meth:`snapshot` from a coroutine, on the event loop's own connection."""
        try:
            rows = await self._loop.rows(b"SELECT key, enabled FROM policy", ())
        except StoreUnavailable as exc:
            self._unreachable(exc, "every switch")
            return _unreadable(exc)
        self._reachable()
        return _snapshot(rows)

    def enabled(self, key: str) -> bool:
        try:
            rows = self._query("SELECT enabled FROM policy WHERE key = %s", (key,))
        except StoreUnavailable as exc:
            self._unreachable(exc, key)
            return False
        self._reachable()
        if not rows:
            return policy_default(key)
        return rows[0][0] is True

    def approvals(self) -> dict[str, str]:
        """The approval modes set at run time; none while the table cannot be read (every
        call then asks, as under ``each``)."""
        try:
            rows = self._query("SELECT key, enabled FROM policy", ())
        except StoreUnavailable as exc:
            self._unreachable(exc, "every switch")
            return {}
        self._reachable()
        return _approvals(rows)

    def set_approval(self, name: str, mode: str | None) -> dict[str, str]:
        """Set how often ``name`` asks; ``None`` follows ``[approvals]`` again."""
        problem = approval_problem(name, "each" if mode is None else mode)
        if problem is not None:
            raise KeyError(problem)
        if mode is None:
            self._query("DELETE FROM policy WHERE key = %s RETURNING key", (APPROVAL_ROW + name,))
        else:
            self._query(
                "INSERT INTO policy(key, enabled) VALUES (%s, %s) "
                "ON CONFLICT (key) DO UPDATE SET enabled = excluded.enabled RETURNING key",
                (APPROVAL_ROW + name, mode == "flagged"),
            )
        return self.approvals()

    def set(self, key: str, value: bool) -> dict[str, bool]:
        if key not in KNOWN_KEYS:
            raise KeyError(key)
        self._query(
            "INSERT INTO policy(key, enabled) VALUES (%s, %s) "
            "ON CONFLICT (key) DO UPDATE SET enabled = excluded.enabled RETURNING key",
            (key, value),
        )
        return self.read()

    def close(self) -> None:
        self._loop.close()
        self._db.close()


def _snapshot(rows: list[tuple[Any, ...]]) -> PolicySnapshot:
    # A switch never set has its default (search and fetch on under web access).
    values = {key: policy_default(key) for key in KNOWN_KEYS}
    values.update({key: enabled is True for key, enabled in rows if key in values})
    return PolicySnapshot(values, approvals=_approvals(rows))


def _approvals(rows: list[tuple[Any, ...]]) -> dict[str, str]:
    return {
        key.removeprefix(APPROVAL_ROW): "flagged" if enabled is True else "each"
        for key, enabled in rows
        if isinstance(key, str) and key.startswith(APPROVAL_ROW)
    }


def _unreadable(exc: StoreUnavailable) -> PolicySnapshot:
    problem = PolicyProblem(
        f"the policy table in PostgreSQL cannot be read ({exc.message}), so web "
        "access stays off; check that PostgreSQL is running (GET /api/v1/health)",
        "PostgreSQL table policy",
        code=Code.STORE_UNAVAILABLE,
    )
    return PolicySnapshot(dict.fromkeys(KNOWN_KEYS, False), problem)
