"""Each person's permissions as the executor asks for them (:class:`PersonalPolicy`).

The owner's switches are checked first by the executor and always win; what is asked here
can only narrow them: the person's capabilities (within their role's), their own domain
lists, their daily call budget, which provider keys their calls may spend, and whether their
calls wait for an owner or a parent.
"""

from __future__ import annotations

import hashlib
import hmac
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

from spyglass.accounts.model import OWNER_ID, Account
from spyglass.accounts.store import AccountStore
from spyglass.core.actor import (
    BUDGET_EXCEEDED,
    PERSONAL_POLICY,
    Actor,
    Decision,
    Refusal,
)
from spyglass.core.outcome import Notice
from spyglass.errors import StoreUnavailable
from spyglass.net import hostnames
from spyglass.settings import ProviderSettings, Settings

#: The install secret the audit pseudonyms are keyed with.
ACTOR_SECRET = "actor"  # noqa: S105 - the name of a secret, not one
APPROVERS = "an owner or a parent"


class Actors:
    """Turns accounts into :class:`Actor` references with stable pseudonyms.

    The pseudonym is an HMAC of the account id under a secret made once per install: the
    same person always gets the same one, and the audit log alone tells nobody who it is.
    """

    def __init__(self, store: AccountStore) -> None:
        self.store = store
        self._key: bytes | None = None

    async def pseudonym(self, account_id: str) -> str:
        if self._key is None:
            self._key = (await self.store.install_secret(ACTOR_SECRET)).encode()
        digest = hmac.new(self._key, account_id.encode(), hashlib.sha256).hexdigest()
        return "p-" + digest[:20]

    async def actor(self, account: Account, read: ProfileRead | None = None) -> Actor:
        """The actor for ``account``; ``read``, the profile read that found it, if any."""
        return Actor(
            account_id=account.id,
            pseudonym=await self.pseudonym(account.id),
            needs_approval=account.needs_approval,
            capabilities=account.capabilities,
            approvals=account.approvals,
            read=read,
        )


#: How long a profile read as a request was authenticated answers that request's checks.
#: A check asks the store again after this; the budget itself is always counted atomically
#: (:meth:`People.spend`), so a read this old can delay a refusal, never overspend.
FRESH_SECONDS = 1.0


@dataclass(frozen=True)
class ProfileRead:
    """One read of a person's profile (:meth:`AccountStore.profile`): the account, its own
    provider keys and its calls on ``day``, read at ``at`` (``time.monotonic()``)."""

    account: Account
    keys: Mapping[str, str]
    used: int
    day: str
    at: float

    def serves(self, account_id: str, day: str) -> bool:
        """Whether this read can stand for a fresh one of ``account_id`` on ``day``."""
        age = time.monotonic() - self.at
        return self.account.id == account_id and self.day == day and 0 <= age <= FRESH_SECONDS


async def read_profile(store: AccountStore, account_id: str, day: str) -> ProfileRead | None:
    """The profile of ``account_id`` on ``day``, or ``None`` when there is no such account."""
    account, keys, used = await store.profile(account_id, day)
    if account is None:
        return None
    return ProfileRead(account, keys, used, day, time.monotonic())


def today(clock: Callable[[], float]) -> str:
    """The day a call is counted against (UTC, so every process agrees), ``YYYY-MM-DD``."""
    # isoformat, not strftime: the C library's strftime looks at the local time zone on
    # every call, a third of this function's time, three times a search turn.
    return datetime.fromtimestamp(clock(), UTC).date().isoformat()


def _host(arguments: Mapping[str, Any]) -> str | None:
    url = arguments.get("url")
    if not isinstance(url, str):
        return None
    try:
        host = urlsplit(url.strip()).hostname
    except ValueError:
        return None
    if not host:
        return None
    try:
        return hostnames.normalise(host)
    except hostnames.HostnameError:
        return None


def _domains(arguments: Mapping[str, Any], name: str) -> list[str]:
    value = arguments.get(name)
    return [v.strip().lower().removeprefix("*.") for v in value] if isinstance(value, list) else []


class People:
    """The production :class:`~spyglass.core.actor.PersonalPolicy`, over the account store."""

    def __init__(self, store: AccountStore, clock: Callable[[], float]) -> None:
        self.store = store
        self.clock = clock

    async def check(
        self,
        actor: Actor,
        capability: str,
        arguments: Mapping[str, Any],
        settings: Settings,
    ) -> Refusal | Settings:
        # One read of everything the answer needs: the account, its keys, today's count;
        # the one made as the request was authenticated, when it is that recent.
        day = today(self.clock)
        read = actor.read
        account: Account | None
        if isinstance(read, ProfileRead) and read.serves(actor.account_id, day):
            account, keys, used = read.account, read.keys, read.used
        else:
            account, keys, used = await self.store.profile(actor.account_id, day)
        if account is None or account.disabled:
            return Refusal(
                PERSONAL_POLICY,
                "this account is disabled or no longer exists; ask the owner",
                reason="account",
            )
        if capability not in account.capabilities:
            return Refusal(
                PERSONAL_POLICY,
                f"{capability} is not among what this account may use (role "
                f"{account.role.value}); the owner can change it with `spyglass users set "
                f"{account.name} --capabilities …` or `set-role`, or under Settings → People",
                reason="capability",
            )
        refusal = self._domain_refusal(account, arguments)
        if refusal is not None:
            return refusal
        budget = account.daily_budget
        if budget is not None and used >= budget:
            return _spent(budget)
        return personal_settings(settings, account, keys)

    def _domain_refusal(self, account: Account, arguments: Mapping[str, Any]) -> Refusal | None:
        deny, allow = account.deny_domains, account.allow_domains
        host = _host(arguments)
        if host is not None:
            if any(hostnames.within(host, d) for d in deny):
                return _domain(host, "is on this account's list of sites it may not read")
            if allow and not any(hostnames.within(host, d) for d in allow):
                return _domain(host, "is not among the sites this account may read")
        for domain in _domains(arguments, "include_domains"):
            if any(hostnames.within(domain, d) for d in deny):
                return _domain(domain, "is on this account's list of sites it may not search")
        return None

    async def spend(self, actor: Actor, capability: str) -> Refusal | None:
        if await self.store.spend_as(actor.account_id, today(self.clock)) is not None:
            return None
        # Not counted: say why (rare, so a second read is fine).
        account = await self.store.get(actor.account_id)
        if account is None or account.disabled or account.daily_budget is None:
            return Refusal(
                PERSONAL_POLICY, "this account is disabled or no longer exists", reason="account"
            )
        return _spent(account.daily_budget)

    async def ask(
        self,
        actor: Actor,
        token: str,
        capability: str,
        arguments: Mapping[str, Any],
        notices: Sequence[Notice],
        conversation_id: str | None,
        expires_at: float,
    ) -> str:
        await self.store.ask(
            token,
            actor.account_id,
            conversation_id,
            capability,
            arguments,
            [n.to_dict() for n in notices],
            expires_at,
        )
        approvers = [a.name for a in await self.store.all() if a.may_approve]
        if not approvers:  # pragma: no cover - there is always an owner
            return APPROVERS
        return f"{APPROVERS} ({', '.join(approvers)})"

    async def decision(self, actor: Actor, token: str) -> Decision:
        return await self.store.decision(token, actor.account_id)


def _spent(budget: int) -> Refusal:
    return Refusal(
        BUDGET_EXCEEDED,
        f"this account's {budget} calls for today are used up; it can call again tomorrow "
        "(UTC), or the owner can raise its daily budget",
        reason="budget",
    )


def _domain(host: str, why: str) -> Refusal:
    return Refusal(
        PERSONAL_POLICY,
        f"{host} {why}; the owner can change this account's site lists",
        reason="domain",
    )


def personal_settings(settings: Settings, account: Account, keys: Mapping[str, str]) -> Settings:
    """``settings`` as one person's calls see them.

    - provider keys: the person's own where they have one; the owner's only if the person may
      spend them, otherwise none (a keyed provider then refuses before anyone is asked);
    - the person's denied sites join ``fetch.deny_domains``, so every redirect hop is checked
      against them too; their allowed sites become ``fetch.allow_domains`` when the owner has
      none (with the owner's own list, the policy stage checks the person's on the URL).
    """
    if account.id == OWNER_ID and not keys:
        return settings
    copy = settings.model_copy(deep=True)
    for section in (copy.search, copy.fetch):
        for name, provider in section.provider_sections().items():
            own = keys.get(name)
            if own is not None:
                key: Any = own
            elif account.owner_keys:
                continue
            else:
                key = None
            replaced = ProviderSettings(base_url=provider.base_url, api_key=key)
            setattr(section, name, replaced)
    if account.deny_domains:
        copy.fetch.deny_domains = [*copy.fetch.deny_domains, *account.deny_domains]
    if account.allow_domains and not copy.fetch.allow_domains:
        copy.fetch.allow_domains = list(account.allow_domains)
    return copy


__all__ = [
    "Actors",
    "People",
    "ProfileRead",
    "StoreUnavailable",
    "personal_settings",
    "read_profile",
    "today",
]
