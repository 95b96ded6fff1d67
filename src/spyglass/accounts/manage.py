"""What the owner does with accounts, shared by the CLI (``spyglass users``) and the
console's Settings → People, so both check the same things and say the same words."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from spyglass.accounts.model import OVERRIDES, OWNER_ID, Account, AccountError
from spyglass.accounts.roles import ALL_CAPABILITIES, ROLES, Role
from spyglass.accounts.store import API_TOKEN, LOGIN, LOGIN_LINK_SECONDS, AccountStore
from spyglass.history.store import HistoryStore
from spyglass.net import hostnames

PROVIDER = re.compile(r"[a-z][a-z0-9_-]{0,31}")
MAX_DOMAINS = 200


@dataclass(frozen=True)
class Added:
    account: Account
    #: A one-time console login code (the link's ``code``), valid for 10 minutes.
    login_code: str


def role_of(text: str) -> Role:
    try:
        return Role(text.strip().lower())
    except ValueError:
        raise AccountError(
            f"{text[:40]!r} is not a role; choose one of {', '.join(r.value for r in Role)}"
        ) from None


async def named(store: AccountStore, name: str) -> Account:
    account = await store.find(name)
    if account is None:
        raise AccountError(
            f"there is no account called {name[:60]!r}; `spyglass users list` shows them"
        )
    return account


async def add(store: AccountStore, name: str, role: Role, *, parent: bool = False) -> Added:
    if parent and not ROLES[role].may_be_parent:
        raise AccountError(f"a {role.value} cannot be a parent; make them a member first")
    account = await store.create(name, role, parent=parent)
    return Added(account, await store.issue(account.id, LOGIN, LOGIN_LINK_SECONDS))


async def login_code(store: AccountStore, account: Account) -> str:
    if account.disabled:
        raise AccountError(f"{account.name} is disabled; enable the account first")
    return await store.issue(account.id, LOGIN, LOGIN_LINK_SECONDS)


async def api_token(store: AccountStore, account: Account) -> str:
    """A new API token for scripts and MCP clients; the one before stops working."""
    if account.disabled:
        raise AccountError(f"{account.name} is disabled; enable the account first")
    return await store.issue(account.id, API_TOKEN, None)


async def remove(
    store: AccountStore, history: HistoryStore, account: Account, *, keep_history: bool
) -> int:
    """Remove ``account``; their conversations are deleted, or kept and handed to the
    owner. Returns how many conversations were deleted or handed over."""
    conversations = await store.remove(account.id)
    if keep_history:
        await store.hand_over(conversations, OWNER_ID)
        return len(conversations)
    for conversation_id in conversations:
        await history.delete(conversation_id)
        await store.forget(conversation_id)
    return len(conversations)


def overrides(changes: Mapping[str, Any]) -> dict[str, Any]:
    """Per-person settings checked and normalised; :class:`AccountError` names the bad one."""
    out: dict[str, Any] = {}
    for key, value in changes.items():
        if key not in OVERRIDES:
            raise AccountError(
                f"{key[:40]!r} is not a per-person setting; these are: {', '.join(OVERRIDES)}"
            )
        if value is None:
            out[key] = None
        elif key == "capabilities":
            out[key] = _capabilities(value)
        elif key in ("allow_domains", "deny_domains"):
            out[key] = _domains(key, value)
        elif key.startswith("approvals_"):
            if value not in ("each", "flagged"):
                raise AccountError(
                    f"{key} must be each or flagged, or none to follow the household's"
                )
            out[key] = value
        elif key == "daily_budget":
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 100000:
                raise AccountError("daily_budget must be a whole number from 0 to 100000, or none")
            out[key] = value
        else:
            if not isinstance(value, bool):
                raise AccountError(f"{key} must be true or false")
            out[key] = value
    return out


def _capabilities(value: Any) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise AccountError("capabilities must be a list of capability names")
    unknown = sorted(set(value) - ALL_CAPABILITIES)
    if unknown:
        raise AccountError(
            f"unknown capability {unknown[0][:40]!r}; known: {', '.join(sorted(ALL_CAPABILITIES))}"
        )
    return sorted(set(value))


def _domains(key: str, value: Any) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise AccountError(f"{key} must be a list of host names")
    if len(value) > MAX_DOMAINS:
        raise AccountError(f"{key} may hold at most {MAX_DOMAINS} sites")
    out: list[str] = []
    for number, entry in enumerate(value, start=1):
        try:
            domain = hostnames.domain_rule(entry)
        except hostnames.HostnameError as exc:
            raise AccountError(
                f"{key} entry {number} ({entry[:80]!r}) cannot be used: {exc}"
            ) from None
        if domain not in out:
            out.append(domain)
    return out


def provider_name(text: str) -> str:
    name = text.strip().lower()
    if not PROVIDER.fullmatch(name):
        raise AccountError(f"{text[:40]!r} is not a provider name (such as brave or tavily)")
    return name
