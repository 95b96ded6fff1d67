"""An account as the rest of Spyglass sees it: who, which role, and their own settings.

A person's own settings (``overrides``) can only narrow what their role allows: a capability
outside the role's set is never granted, whatever the owner wrote.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from spyglass.accounts.roles import ROLES, Role, RolePermissions
from spyglass.errors import InputError

#: The first account of every install; the single owner from before accounts existed.
OWNER_ID = "owner"

NAME = re.compile(r"[a-z0-9][a-z0-9._-]{0,39}")

#: Per-person settings the owner may change, with what each means (for --help and docs).
OVERRIDES: dict[str, str] = {
    "capabilities": "capabilities this person may use (only within their role's)",
    "allow_domains": "if set, the only sites this person's page reads may go to",
    "deny_domains": "sites this person may never read or search",
    "daily_budget": "calls per day (0 or more; none for no limit)",
    "owner_keys": "whether this person may spend the owner's provider keys",
    "needs_approval": "whether every call of this person waits for an owner or a parent",
    "approvals_search": "how often their searches ask: each, flagged, or none (the household's)",
    "approvals_fetch": "how often their page reads ask: each, flagged, or none (the household's)",
}
#: The approval keys a person may have their own mode for, as ``approvals_<key>`` overrides.
PERSONAL_APPROVALS = ("search", "fetch")


class AccountError(InputError):
    """A request about accounts that cannot be done as asked; the message says why."""


def check_name(name: str) -> str:
    """The name as stored (lower case), or :class:`AccountError` saying what is wrong."""
    folded = name.strip().lower()
    if not NAME.fullmatch(folded):
        raise AccountError(
            f"{name[:60]!r} cannot be an account name: use 1 to 40 letters, digits, '.', '_' "
            "or '-', starting with a letter or digit"
        )
    return folded


@dataclass(frozen=True)
class Account:
    id: str
    name: str
    role: Role
    disabled: bool = False
    #: Marked a parent: approves other people's waiting calls.
    parent: bool = False
    overrides: Mapping[str, Any] = field(default_factory=dict)
    has_password: bool = False
    created_at: float = 0.0

    @property
    def permissions(self) -> RolePermissions:
        return ROLES[self.role]

    @property
    def capabilities(self) -> frozenset[str]:
        allowed = self.permissions.capabilities
        chosen = self.overrides.get("capabilities")
        return allowed if chosen is None else allowed & frozenset(chosen)

    @property
    def allow_domains(self) -> tuple[str, ...]:
        return tuple(self.overrides.get("allow_domains") or ())

    @property
    def deny_domains(self) -> tuple[str, ...]:
        return tuple(self.overrides.get("deny_domains") or ())

    @property
    def daily_budget(self) -> int | None:
        if "daily_budget" in self.overrides:
            value = self.overrides["daily_budget"]
            return None if value is None else int(value)
        return self.permissions.daily_budget

    @property
    def owner_keys(self) -> bool:
        return bool(self.overrides.get("owner_keys", self.permissions.owner_keys))

    @property
    def needs_approval(self) -> bool:
        # The owner's own calls are always theirs to approve.
        if self.role is Role.OWNER:
            return False
        return bool(self.overrides.get("needs_approval", self.permissions.needs_approval))

    @property
    def approvals(self) -> dict[str, str]:
        """Their own approval modes (``{"fetch": "flagged"}``); a key left out follows the
        household's. A person whose calls wait keeps those rules whatever is set here."""
        found = {key: self.overrides.get(f"approvals_{key}") for key in PERSONAL_APPROVALS}
        return {key: mode for key, mode in found.items() if mode in ("each", "flagged")}

    @property
    def may_approve(self) -> bool:
        """Approves other people's waiting calls: the owner, and a person marked parent."""
        if self.disabled:
            return False
        return self.permissions.may_approve or (self.parent and self.permissions.may_be_parent)

    @property
    def manages(self) -> bool:
        return self.permissions.manage and not self.disabled

    def to_dict(self) -> dict[str, Any]:
        """What the owner sees about an account (never a credential or a key)."""
        return {
            "id": self.id,
            "name": self.name,
            "role": self.role.value,
            "disabled": self.disabled,
            "parent": self.may_approve and self.role is not Role.OWNER,
            "capabilities": sorted(self.capabilities),
            "allow_domains": list(self.allow_domains),
            "deny_domains": list(self.deny_domains),
            "daily_budget": self.daily_budget,
            "owner_keys": self.owner_keys,
            "needs_approval": self.needs_approval,
            # None: the household's mode.
            **{f"approvals_{key}": self.approvals.get(key) for key in PERSONAL_APPROVALS},
            "has_password": self.has_password,
        }
