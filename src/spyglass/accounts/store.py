"""Where accounts live: one SQL store over the state database of either backend.

The tables come from the state stores' migrations (the SQLite state file's and
PostgreSQL's), so an install's accounts sit next to its other state and are upgraded by
``spyglass db upgrade`` like the rest. The same statements run on both through a tiny
:class:`~spyglass.accounts.runner.Runner`, which the backends implement in
:mod:`spyglass.state`: SQLite (embedded) or PostgreSQL (shared).

Login codes, sessions and API tokens are kept as SHA-256 digests, as every other credential
of Spyglass: a copy of the database signs nobody in.
"""

from __future__ import annotations

import json
import secrets
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, TypeVar

from spyglass.accounts.holders import ConversationHolders
from spyglass.accounts.model import Account, AccountError, check_name
from spyglass.accounts.queue import ApprovalQueue
from spyglass.accounts.roles import Role
from spyglass.accounts.runner import Execute, Runner
from spyglass.core.confirmation import token_digest

T = TypeVar("T")

#: Expiry of credentials that last until revoked (API tokens).
NEVER = 1e18

LOGIN = "login"
#: How long a person's sign-in link lasts: as long as the console's one-time login codes.
LOGIN_LINK_SECONDS = 600
SESSION = "session"
#: What a signed-out session's binding names instead of its person: no account has this id
#: (ids are hex), so the session signs nobody in and is not taken for an unbound one.
SIGNED_OUT = "signed-out"
API_TOKEN = "token"  # noqa: S105 - a kind of credential, not one

_SELECT = (
    "SELECT id, name, role, disabled, parent, overrides, password IS NOT NULL, created_at, "
    "password FROM accounts"
)
BY_ID = _SELECT + " WHERE id = ?"
BY_NAME = _SELECT + " WHERE name = ?"
ALL = _SELECT + " ORDER BY created_at, name"
#: An account with its own provider keys (a row each, or one row of NULLs) and its calls on a
#: day: one statement, so one consistent read and, on PostgreSQL, one trip to the server.
PROFILE = (
    "SELECT a.id, a.name, a.role, a.disabled, a.parent, a.overrides, a.password IS NOT NULL, "
    "a.created_at, a.password, k.provider, k.secret, (SELECT u.calls FROM account_usage u "
    "WHERE u.account_id = a.id AND u.day = ?) FROM accounts a "
    "LEFT JOIN account_keys k ON k.account_id = a.id WHERE a.id = ?"
)
#: A credential and the account it signs in (``NULL``\ s when that is gone): one statement, so
#: a request's sign-in check is one trip to the server and no transaction.
CREDENTIAL = (
    "SELECT c.expires_at, a.id, a.name, a.role, a.disabled, a.parent, a.overrides, "
    "a.password IS NOT NULL, a.created_at, a.password FROM account_credentials c "
    "LEFT JOIN accounts a ON a.id = c.account_id WHERE c.digest = ? AND c.kind = ?"
)
#: PostgreSQL: count one call on a day for an account that is not disabled and drop its
#: older days, in one statement; answers the account and the day's count after this call
#: (``NULL`` when disabled: nothing counted). Concurrent calls each get their own count (the
#: upsert locks the day's row), so the caller refuses, and gives back, a call past the budget.
SPEND_POSTGRES = (
    "WITH a AS (" + _SELECT + " WHERE id = ?), "  # noqa: S608 - constants only
    "counted AS (INSERT INTO account_usage(account_id, day, calls) "
    "SELECT id, ?, 1 FROM a WHERE disabled = 0 ON CONFLICT (account_id, day) "
    "DO UPDATE SET calls = account_usage.calls + 1 RETURNING calls), "
    "dropped AS (DELETE FROM account_usage WHERE account_id = (SELECT id FROM a "
    "WHERE disabled = 0) AND day < ?) "
    "SELECT a.*, (SELECT calls FROM counted) FROM a"
)


def _account(row: Sequence[Any]) -> Account:
    return Account(
        id=row[0],
        name=row[1],
        role=Role(row[2]),
        disabled=bool(row[3]),
        parent=bool(row[4]),
        overrides=json.loads(row[5] or "{}"),
        has_password=bool(row[6]),
        created_at=float(row[7]),
    )


def _signed_in(row: Sequence[Any], now: float) -> Account | None:
    """The account a :data:`CREDENTIAL` row signs in: ``None`` when the credential has
    expired or its account is gone or disabled."""
    if float(row[0]) <= now or row[1] is None:
        return None
    account = _account(row[1:])
    return None if account.disabled else account


class AccountStore(ConversationHolders, ApprovalQueue):
    """Accounts, their credentials, keys and daily counts; whose conversations are whose
    (:class:`ConversationHolders`) and the calls waiting for an approver
    (:class:`ApprovalQueue`)."""

    def __init__(self, runner: Runner, clock: Callable[[], float]) -> None:
        self.runner = runner
        self.clock = clock

    # -- accounts -------------------------------------------------------------------------

    async def create(self, name: str, role: Role, *, parent: bool = False) -> Account:
        name = check_name(name)
        account = Account(
            id=uuid.uuid4().hex, name=name, role=role, parent=parent, created_at=self.clock()
        )

        def work(run: Execute) -> None:
            if run("SELECT 1 FROM accounts WHERE name = ?", (name,)):
                raise AccountError(f"there is already an account called {name!r}")
            run(
                "INSERT INTO accounts(id, name, role, parent, created_at) VALUES (?,?,?,?,?)",
                (account.id, name, role.value, int(parent), account.created_at),
            )

        await self.runner.transaction(work)
        return account

    async def get(self, account_id: str) -> Account | None:
        rows = await self.runner.statement(BY_ID, (account_id,))
        return _account(rows[0]) if rows else None

    async def find(self, name: str) -> Account | None:
        folded = name.strip().lower()
        rows = await self.runner.statement(BY_NAME, (folded,))
        return _account(rows[0]) if rows else None

    async def all(self) -> list[Account]:
        rows = await self.runner.statement(ALL, ())
        return [_account(row) for row in rows]

    async def update(
        self,
        account_id: str,
        *,
        role: Role | None = None,
        disabled: bool | None = None,
        parent: bool | None = None,
        overrides: Mapping[str, Any] | None = None,
    ) -> Account:
        """Change an account; ``overrides`` are merged in (a ``None`` value removes one)."""

        def work(run: Execute) -> Account:
            rows = run(BY_ID, (account_id,))
            if not rows:
                raise AccountError("there is no such account")
            current = _account(rows[0])
            new_role = role or current.role
            if current.role is Role.OWNER and (new_role is not Role.OWNER or disabled):
                owners = run(
                    "SELECT COUNT(*) FROM accounts WHERE role = ? AND disabled = 0",
                    (Role.OWNER.value,),
                )
                if owners[0][0] <= 1:
                    raise AccountError(
                        "this is the only owner: make someone else an owner first, so the "
                        "house is never left without one"
                    )
            merged = dict(current.overrides)
            for key, value in (overrides or {}).items():
                if value is None and key != "daily_budget":
                    merged.pop(key, None)
                else:
                    merged[key] = value
            run(
                "UPDATE accounts SET role = ?, disabled = ?, parent = ?, overrides = ? "
                "WHERE id = ?",
                (
                    new_role.value,
                    int(current.disabled if disabled is None else disabled),
                    int(current.parent if parent is None else parent),
                    json.dumps(merged, sort_keys=True),
                    account_id,
                ),
            )
            if disabled:
                # A disabled person is signed out everywhere at once, and for good: their
                # links and token are gone, and their sessions' bindings now name nobody, so
                # re-enabling them revives none of it. The bindings themselves stay, so a
                # session is never mistaken for one from before accounts existed (which
                # would be the owner's).
                run(
                    "DELETE FROM account_credentials WHERE account_id = ? AND kind <> ?",
                    (account_id, SESSION),
                )
                run(
                    "UPDATE account_credentials SET account_id = ? "
                    "WHERE account_id = ? AND kind = ?",
                    (SIGNED_OUT, account_id, SESSION),
                )
            rows = run(BY_ID, (account_id,))
            return _account(rows[0])

        return await self.runner.transaction(work)

    async def remove(self, account_id: str) -> list[str]:
        """Delete an account and everything that was only theirs; returns their
        conversations' ids (the caller deletes or keeps the conversations themselves)."""

        def work(run: Execute) -> list[str]:
            rows = run("SELECT role FROM accounts WHERE id = ?", (account_id,))
            if not rows:
                raise AccountError("there is no such account")
            if rows[0][0] == Role.OWNER.value:
                owners = run("SELECT COUNT(*) FROM accounts WHERE role = ?", (Role.OWNER.value,))
                if owners[0][0] <= 1:
                    raise AccountError("the only owner cannot be removed")
            owned = [
                r[0]
                for r in run(
                    "SELECT conversation_id FROM account_conversations WHERE account_id = ?",
                    (account_id,),
                )
            ]
            # Session bindings stay until they expire, naming an account that is gone.
            run(
                "DELETE FROM account_credentials WHERE account_id = ? AND kind <> ?",
                (account_id, SESSION),
            )
            run("DELETE FROM account_keys WHERE account_id = ?", (account_id,))
            run("DELETE FROM account_usage WHERE account_id = ?", (account_id,))
            run("DELETE FROM approvals WHERE account_id = ?", (account_id,))
            run("DELETE FROM accounts WHERE id = ?", (account_id,))
            return owned

        return await self.runner.transaction(work)

    async def set_password(self, account_id: str, hashed: str | None) -> None:
        await self.runner.transaction(
            lambda run: run("UPDATE accounts SET password = ? WHERE id = ?", (hashed, account_id))
        )

    async def password(self, name: str) -> tuple[Account, str] | None:
        """The account called ``name`` and its password hash, if it has one."""
        folded = name.strip().lower()
        rows = await self.runner.statement(BY_NAME, (folded,))
        if not rows or rows[0][8] is None:
            return None
        return _account(rows[0]), rows[0][8]

    # -- credentials ----------------------------------------------------------------------

    async def issue(self, account_id: str, kind: str, ttl: float | None) -> str:
        """A new secret of ``kind`` for the account. A new API token replaces the old one."""
        secret = secrets.token_urlsafe(32)
        now = self.clock()
        expires = NEVER if ttl is None else now + ttl
        await self.bind(secret, account_id, kind, expires, replace=kind == API_TOKEN)
        return secret

    async def bind(
        self, secret: str, account_id: str, kind: str, expires_at: float, *, replace: bool = False
    ) -> None:
        """Record that ``secret`` (kept as its digest) signs ``account_id`` in until then."""
        now = self.clock()

        def work(run: Execute) -> None:
            run("DELETE FROM account_credentials WHERE expires_at <= ?", (now,))
            if replace:
                run(
                    "DELETE FROM account_credentials WHERE account_id = ? AND kind = ?",
                    (account_id, kind),
                )
            run(
                "INSERT INTO account_credentials(digest, account_id, kind, expires_at) "
                "VALUES (?,?,?,?)",
                (token_digest(secret), account_id, kind, expires_at),
            )

        await self.runner.transaction(work)

    async def resolve(self, kind: str, secret: str, *, consume: bool = False) -> Account | None:
        """The enabled account ``secret`` signs in, or ``None``; ``consume`` spends it."""
        digest = token_digest(secret)
        now = self.clock()
        if not consume:
            rows = await self.runner.statement(CREDENTIAL, (digest, kind))
            return _signed_in(rows[0], now) if rows else None

        def work(run: Execute) -> Account | None:
            # Spent and read in one step: of two redemptions at once (two processes on
            # PostgreSQL), only the one whose delete took the row signs anybody in.
            spent = run(
                "DELETE FROM account_credentials WHERE digest = ? AND kind = ? "
                "RETURNING expires_at, account_id",
                (digest, kind),
            )
            if not spent:
                return None
            rows = run(BY_ID, (spent[0][1],))
            return _signed_in((spent[0][0], *rows[0]), now) if rows else None

        return await self.runner.transaction(work)

    async def session(self, secret: str) -> Account | Literal["unbound"] | None:
        """The person a console session is bound to: ``"unbound"`` when none is (a session
        from before accounts existed), ``None`` when theirs is disabled, gone or expired."""
        rows = await self.runner.statement(CREDENTIAL, (token_digest(secret), SESSION))
        return _signed_in(rows[0], self.clock()) if rows else "unbound"

    async def revoke(self, secret: str) -> None:
        digest = token_digest(secret)
        await self.runner.transaction(
            lambda run: run("DELETE FROM account_credentials WHERE digest = ?", (digest,))
        )

    # -- provider keys --------------------------------------------------------------------

    async def set_key(self, account_id: str, provider: str, secret: str | None) -> None:
        def work(run: Execute) -> None:
            run(
                "DELETE FROM account_keys WHERE account_id = ? AND provider = ?",
                (account_id, provider),
            )
            if secret:
                run(
                    "INSERT INTO account_keys(account_id, provider, secret) VALUES (?,?,?)",
                    (account_id, provider, secret),
                )

        await self.runner.transaction(work)

    async def keys(self, account_id: str) -> dict[str, str]:
        """The person's own provider keys: for the call that uses them, never for display."""
        rows = await self.runner.read(
            lambda run: run(
                "SELECT provider, secret FROM account_keys WHERE account_id = ?", (account_id,)
            )
        )
        return {provider: secret for provider, secret in rows}

    async def profile(
        self, account_id: str, day: str
    ) -> tuple[Account | None, dict[str, str], int]:
        """The account, its own provider keys and its calls on ``day``, in one read."""
        rows = await self.runner.statement(PROFILE, (day, account_id))
        if not rows:
            return None, {}, 0
        keys = {row[9]: row[10] for row in rows if row[9] is not None}
        return _account(rows[0]), keys, int(rows[0][11] or 0)

    # -- daily budget ---------------------------------------------------------------------

    async def spend(self, account_id: str, day: str, limit: int | None) -> bool:
        """Count one call today, unless the day's ``limit`` is reached (atomically)."""
        return await self.runner.transaction(lambda run: _spend(run, account_id, day, limit))

    async def spend_as(self, account_id: str, day: str) -> Account | None:
        """Count one call today against the account's own budget, atomically with reading
        it. The account, or ``None`` when it is gone, disabled or its day's budget is spent
        (read the account again to tell those apart)."""
        if self.runner.dialect == "postgresql":
            return await self._spend_postgres(account_id, day)

        def work(run: Execute) -> Account | None:
            found = run(BY_ID, (account_id,))
            account = _account(found[0]) if found else None
            if account is None or account.disabled:
                return None
            return account if _spend(run, account_id, day, account.daily_budget) else None

        return await self.runner.transaction(work)

    async def _spend_postgres(self, account_id: str, day: str) -> Account | None:
        # One statement instead of six (BEGIN, two reads, the count, the drop, COMMIT):
        # the budget is the role's unless the person's own settings change it, which only
        # Python knows, so the count is made first and a call past the budget given back.
        rows = await self.runner.statement(SPEND_POSTGRES, (account_id, day, day))
        if not rows or rows[0][9] is None:
            return None
        account = _account(rows[0])
        budget = account.daily_budget
        if budget is not None and int(rows[0][9]) > budget:
            await self.runner.statement(
                "UPDATE account_usage SET calls = calls - 1 WHERE account_id = ? AND day = ?",
                (account_id, day),
            )
            return None
        return account

    async def used(self, account_id: str, day: str) -> int:
        rows = await self.runner.transaction(
            lambda run: run(
                "SELECT calls FROM account_usage WHERE account_id = ? AND day = ?",
                (account_id, day),
            )
        )
        return int(rows[0][0]) if rows else 0

    # -- the install's secret -------------------------------------------------------------

    async def install_secret(self, name: str) -> str:
        """A random secret made once per install (the same in every process)."""
        fresh = secrets.token_hex(32)

        def work(run: Execute) -> str:
            run(
                "INSERT INTO install_secrets(name, value) VALUES (?,?) "
                "ON CONFLICT (name) DO NOTHING",
                (name, fresh),
            )
            return str(run("SELECT value FROM install_secrets WHERE name = ?", (name,))[0][0])

        return await self.runner.transaction(work)


def _spend(run: Execute, account_id: str, day: str, limit: int | None) -> bool:
    """Count one call on ``day`` unless ``limit`` is reached; older days are dropped."""
    rows = run(
        "SELECT calls FROM account_usage WHERE account_id = ? AND day = ?", (account_id, day)
    )
    used = int(rows[0][0]) if rows else 0
    if limit is not None and used >= limit:
        return False
    run(
        "INSERT INTO account_usage(account_id, day, calls) VALUES (?,?,1) "
        "ON CONFLICT (account_id, day) DO UPDATE SET calls = account_usage.calls + 1",
        (account_id, day),
    )
    run("DELETE FROM account_usage WHERE account_id = ? AND day < ?", (account_id, day))
    return True
