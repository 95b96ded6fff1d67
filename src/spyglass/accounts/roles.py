"""The role table: what each kind of account may do. The single source of truth.

Every check (the executor's policy stage through :mod:`spyglass.accounts.people`, the
service's routes, the CLI) and the table in ``docs/accounts.md`` read :data:`ROLES`; nothing
else spells out what a role may do.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum


class Role(StrEnum):
    OWNER = "owner"
    MEMBER = "member"
    CHILD = "child"
    GUEST = "guest"


#: Every capability a role may be granted; a person's own list can only narrow it.
ALL_CAPABILITIES = frozenset({"system.health", "web.search", "web.fetch"})


@dataclass(frozen=True)
class RolePermissions:
    """What a role may do, and the defaults a new account of that role starts with."""

    #: Capabilities a person of this role may ever use (their own list narrows it).
    capabilities: frozenset[str]
    #: Add, change and remove accounts, change the owner's switches, read every receipt.
    manage: bool
    #: Their own calls wait for an owner or a parent instead of being approved by them.
    needs_approval: bool
    #: May approve other people's waiting calls (a parent). The owner always may.
    may_approve: bool
    #: May be marked a parent (approve other people's calls).
    may_be_parent: bool
    #: Starts out allowed to spend the owner's provider keys.
    owner_keys: bool
    #: Calls per day a new account starts with (``None``: no limit).
    daily_budget: int | None
    #: Conversations are kept in history (a guest's are not).
    keeps_history: bool
    summary: str


ROLES: dict[Role, RolePermissions] = {
    Role.OWNER: RolePermissions(
        capabilities=ALL_CAPABILITIES,
        manage=True,
        needs_approval=False,
        may_approve=True,
        may_be_parent=True,
        owner_keys=True,
        daily_budget=None,
        keeps_history=True,
        summary="everything, including the switches and the people",
    ),
    Role.MEMBER: RolePermissions(
        capabilities=ALL_CAPABILITIES,
        manage=False,
        needs_approval=False,
        may_approve=False,
        may_be_parent=True,
        owner_keys=True,
        daily_budget=None,
        keeps_history=True,
        summary="searches and reads pages, approving their own calls",
    ),
    Role.CHILD: RolePermissions(
        capabilities=frozenset({"system.health", "web.search"}),
        manage=False,
        needs_approval=True,
        may_approve=False,
        may_be_parent=False,
        owner_keys=True,
        daily_budget=50,
        keeps_history=True,
        summary="searches only; every call waits for an owner or a parent",
    ),
    Role.GUEST: RolePermissions(
        capabilities=frozenset({"system.health", "web.search"}),
        manage=False,
        needs_approval=False,
        may_approve=False,
        may_be_parent=False,
        owner_keys=False,
        daily_budget=20,
        keeps_history=False,
        summary="searches with keyless providers, sees no history, keeps none",
    ),
}


def permissions(role: Role | str) -> RolePermissions:
    return ROLES[Role(role)]


def _yes(value: bool) -> str:
    return "yes" if value else "no"


def _budget(value: int | None) -> str:
    return "no limit" if value is None else str(value)


#: The role table's rows after the capabilities: what a row says, and how a role answers it.
_TABLE_ROWS: tuple[tuple[str, Callable[[RolePermissions], str]], ...] = (
    ("manage people, switches; read every receipt", lambda p: _yes(p.manage)),
    ("calls wait for an owner or parent", lambda p: _yes(p.needs_approval)),
    ("approves other people's calls", lambda p: _yes(p.may_approve)),
    ("may be marked a parent", lambda p: _yes(p.may_be_parent)),
    ("owner's provider keys (default)", lambda p: _yes(p.owner_keys)),
    ("calls per day (default)", lambda p: _budget(p.daily_budget)),
    ("history kept", lambda p: _yes(p.keeps_history)),
)


def markdown_table() -> str:
    """The role table as Markdown, for docs/accounts.md (generated, never edited)."""
    rows = [
        ("What", *(role.value for role in ROLES)),
        ("---", *("---" for _ in ROLES)),
    ]
    for capability in sorted(ALL_CAPABILITIES):
        rows.append(
            (f"`{capability}`", *(_yes(capability in p.capabilities) for p in ROLES.values()))
        )
    rows += [(label, *(cell(p) for p in ROLES.values())) for label, cell in _TABLE_ROWS]
    lines = ["| " + " | ".join(row) + " |" for row in rows]
    summaries = [f"- **{role.value}**: {p.summary}." for role, p in ROLES.items()]
    return "\n".join([*lines, "", *summaries]) + "\n"
