"""``open_stores``: the one place that turns the ``[state]`` settings into stores.

A plain factory: the composition root (:func:`spyglass.runtime.build_runtime`) calls it with
the clock every store shares.

Embedded (the default) needs no server: tokens, paused turns, sessions, login codes and
conversation grants in ``state.db``, history in ``spyglass.db``, the audit log and policy as
files — all under ``SPYGLASS_HOME``, kept across a restart and shared by processes on the
same machine. Shared puts tokens, paused turns, sessions, login codes and conversation grants
in Redis and history, audit and the policy switch in PostgreSQL, for processes on several
machines or behind one proxy.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from spyglass.core.audit import AuditLog, AuditSink
from spyglass.core.confirmation import ConfirmationStore
from spyglass.core.grants import GrantStore, InMemoryGrants
from spyglass.core.policy import PolicyFile
from spyglass.errors import ConfigError, StoreUnavailable
from spyglass.paths import Paths
from spyglass.settings import Settings
from spyglass.state.grants import RedisGrants, SQLiteGrants
from spyglass.state.pages import PageCache, RedisPageCache, SQLitePageCache
from spyglass.state.sessions import LoginCodeStore, SessionStore

if TYPE_CHECKING:
    from spyglass.accounts.store import AccountStore
    from spyglass.conversation.pending import PendingTurnStore
    from spyglass.history.store import HistoryStore

# The accounts, the history and the conversation code are imported when first used: the
# owner's own call refused by policy opens the policy and the audit log, and nothing else.

logger = logging.getLogger(__name__)

#: A health probe that takes longer than this counts as down.
HEALTH_TIMEOUT_SECONDS = 2.0


class OwnerPolicy(Protocol):
    """The owner's switches as the front ends use them: read all, check one, set one."""

    def read(self) -> dict[str, bool]: ...
    def enabled(self, key: str) -> bool: ...
    def set(self, key: str, value: bool) -> dict[str, bool]: ...
    def approvals(self) -> dict[str, str]:
        """The approval modes set at run time (``spyglass.core.policy.APPROVAL_KEYS``)."""
        ...

    def set_approval(self, name: str, mode: str | None) -> dict[str, str]:
        """Set one approval mode (``None``: follow ``[approvals]``); raises ``KeyError``
        with what to use for an unknown key or mode."""
        ...


class Probe(Protocol):
    async def health(self) -> dict[str, Any]: ...


class AuditReader(AuditSink, Protocol):
    def tail(self, count: int) -> list[dict[str, Any]]: ...


@dataclass
class Stores:
    """Every store a Spyglass process uses, and how to check and close them."""

    backend: str
    confirmations: ConfirmationStore
    pending: PendingTurnStore
    sessions: SessionStore
    login_codes: LoginCodeStore
    audit: AuditReader
    policy: OwnerPolicy
    #: Pages a turn has read (``web.fetch``), for whichever process carries the turn on.
    pages: PageCache
    #: Opens the history store (the service does; the CLI never needs it).
    history: Callable[[], HistoryStore]
    #: Opens the household's accounts (spyglass.accounts), in the state database.
    open_accounts: Callable[[], AccountStore]
    #: "Allow for this conversation" grants (spyglass.core.grants).
    grants: GrantStore = field(default_factory=InMemoryGrants)
    probes: dict[str, Probe] = field(default_factory=dict)
    #: Brings the schemas up to date (blocking: run it on a worker thread); returns versions.
    upgrade: Callable[[], dict[str, int]] = dict
    closers: list[Callable[[], Any]] = field(default_factory=list)
    _accounts: AccountStore | None = field(default=None, init=False, repr=False)

    @property
    def accounts(self) -> AccountStore:
        """The household's accounts, opened on first use."""
        if self._accounts is None:
            self._accounts = self.open_accounts()
        return self._accounts

    async def health(self) -> dict[str, dict[str, Any]]:
        """Each store's state: ``{"status": "ok"}`` or ``{"status": "down", "error": …}``."""
        import asyncio  # not at import: a refused command opens the stores without a loop

        async def probe(name: str, target: Probe) -> tuple[str, dict[str, Any]]:
            try:
                return name, await asyncio.wait_for(target.health(), HEALTH_TIMEOUT_SECONDS)
            except (StoreUnavailable, TimeoutError) as exc:
                message = exc.message if isinstance(exc, StoreUnavailable) else "timed out"
                return name, {"status": "down", "error": message}

        answers = await asyncio.gather(*(probe(n, p) for n, p in self.probes.items()))
        return dict(answers)

    async def aclose(self) -> None:
        import asyncio

        for close in self.closers:
            with contextlib.suppress(Exception):
                result = close()
                if asyncio.iscoroutine(result):
                    await result


def open_stores(settings: Settings, paths: Paths, clock: Callable[[], float]) -> Stores:
    """The stores ``settings.state`` asks for. ``clock`` is wall-clock time (tests move it)."""
    state = settings.state
    history_settings = settings.history
    if state.backend == "shared":
        try:
            from spyglass.state import postgres, redis
        except ImportError as exc:
            raise ConfigError(
                f"state.backend = shared needs the Redis and PostgreSQL clients ({exc.name} is "
                "missing); install them with: pip install 'spyglass[shared]'"
            ) from exc

        assert state.redis_url is not None and state.database_url is not None
        database_url = state.database_url.get_secret_value()
        timeout = state.connect_timeout_seconds
        server = redis.RedisState(state.redis_url.get_secret_value(), timeout=timeout, clock=clock)
        audit = postgres.PostgresAudit(database_url, timeout=timeout)
        policy = postgres.PostgresPolicy(database_url, timeout=timeout)
        histories: list[postgres.PostgresHistory] = []

        def shared_history() -> HistoryStore:
            if not history_settings.enabled:
                from spyglass.history.store import NullHistory

                return NullHistory()
            store = postgres.PostgresHistory(
                database_url, retention_days=history_settings.retention_days, timeout=timeout
            )
            histories.append(store)
            return store

        probe = postgres.PostgresHistory(database_url, retention_days=1, timeout=timeout)
        from spyglass.state.postgres.accounts import PostgresRunner

        people = PostgresRunner(database_url, timeout=timeout)

        def shared_accounts() -> AccountStore:
            from spyglass.accounts.store import AccountStore

            return AccountStore(people, clock)

        return Stores(
            backend="shared",
            confirmations=redis.RedisConfirmationStore(server),
            pending=redis.RedisPendingTurnStore(server, state.lease_seconds),
            sessions=redis.RedisSessions(server),
            login_codes=redis.RedisLoginCodes(server),
            pages=RedisPageCache(
                server,
                max_entry_bytes=state.page_cache_max_bytes,
                ttl_seconds=state.page_cache_seconds,
            ),
            audit=audit,
            policy=policy,
            history=shared_history,
            open_accounts=shared_accounts,
            grants=RedisGrants(server),
            probes={"redis": server, "postgresql": probe},
            closers=[server.aclose, probe.close, audit.close, policy.close, people.close],
            upgrade=lambda: {"postgresql": postgres.upgrade(database_url, timeout)},
        )

    from spyglass.state.sqlite import statefile as sqlite

    db = sqlite.StateDB(paths.state_file, clock)

    def embedded_history() -> HistoryStore:
        from spyglass.state.sqlite.history import open_history

        return open_history(
            paths.database_file,
            enabled=history_settings.enabled,
            retention_days=history_settings.retention_days,
        )

    def embedded_accounts() -> AccountStore:
        from spyglass.accounts.store import AccountStore
        from spyglass.state.sqlite.accounts import SQLiteRunner

        return AccountStore(SQLiteRunner(db), clock)

    return Stores(
        backend="embedded",
        confirmations=sqlite.SQLiteConfirmationStore(db),
        pending=sqlite.SQLitePendingTurnStore(db, state.lease_seconds),
        sessions=sqlite.SQLiteSessions(db),
        login_codes=sqlite.SQLiteLoginCodes(db),
        pages=SQLitePageCache(
            db, max_entry_bytes=state.page_cache_max_bytes, ttl_seconds=state.page_cache_seconds
        ),
        audit=AuditLog(paths.audit_file),
        policy=PolicyFile(paths.policy_file),
        history=embedded_history,
        open_accounts=embedded_accounts,
        grants=SQLiteGrants(db),
        probes={"sqlite": db},
        closers=[db.close],
        upgrade=lambda: {"sqlite": db.upgrade()},
    )
