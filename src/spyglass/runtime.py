"""The composition root: builds the executor and its stores from settings and paths.

Front ends (CLI, HTTP, MCP) call :func:`build_runtime` once and share what it returns.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

# httpcore asks for sniffio on every request (asyncio or trio?): installed, that is a lookup;
# missing, every request searches sys.path for it again (docs/benchmarks.md, conversation
# service). Imported here so the dependency it needs stays declared.
import sniffio  # noqa: F401

from spyglass.capabilities import BUILTIN
from spyglass.core.actor import Actor, Decision, PersonalPolicy, Refusal
from spyglass.core.answers import Answers
from spyglass.core.confirmation import ConfirmationStore
from spyglass.core.context import Seams
from spyglass.core.executor import Executor
from spyglass.core.expiry import ExpirySweep
from spyglass.core.outcome import Notice
from spyglass.core.permission import Permission
from spyglass.core.registry import Registry
from spyglass.paths import Paths
from spyglass.settings import Settings, load_settings
from spyglass.state.pages import PAGE_CACHE
from spyglass.state.stores import AuditReader, OwnerPolicy, Stores, open_stores

if TYPE_CHECKING:
    from spyglass.accounts.people import Actors
    from spyglass.accounts.store import AccountStore

logger = logging.getLogger(__name__)


class HouseholdPolicy:
    """The household's permissions (:class:`spyglass.accounts.people.People`), loaded when
    the first call made for a person asks.

    The owner's own calls (the CLI, a front end without accounts) carry no person, so they
    never load the account store or the approval queue: a call refused before anyone is
    asked stays as quick to refuse as it is to type.
    """

    def __init__(self, stores: Stores, clock: Callable[[], float]) -> None:
        self._stores = stores
        self._clock = clock
        self._people: PersonalPolicy | None = None

    def _loaded(self) -> PersonalPolicy:
        if self._people is None:
            from spyglass.accounts.people import People

            self._people = People(self._stores.accounts, clock=self._clock)
        return self._people

    async def check(
        self, actor: Actor, capability: str, arguments: Mapping[str, Any], settings: Settings
    ) -> Refusal | Settings:
        return await self._loaded().check(actor, capability, arguments, settings)

    async def spend(self, actor: Actor, capability: str) -> Refusal | None:
        return await self._loaded().spend(actor, capability)

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
        return await self._loaded().ask(
            actor, token, capability, arguments, notices, conversation_id, expires_at
        )

    async def decision(self, actor: Actor, token: str) -> Decision:
        return await self._loaded().decision(actor, token)


@dataclass
class Runtime:
    paths: Paths
    settings: Settings
    policy: OwnerPolicy
    audit: AuditReader
    confirmations: ConfirmationStore
    executor: Executor
    stores: Stores
    #: Wall-clock time as the executor and every store see it (tests pass one they move).
    clock: Callable[[], float]
    _actors: Actors | None = field(default=None, repr=False)

    @property
    def accounts(self) -> AccountStore:
        return self.stores.accounts

    @property
    def actors(self) -> Actors:
        """Turns accounts into the actor references calls carry (pseudonyms cached)."""
        if self._actors is None:
            from spyglass.accounts.people import Actors

            self._actors = Actors(self.stores.accounts)
        return self._actors

    @property
    def registry(self) -> Registry:
        return self.executor.registry

    @property
    def seams(self) -> Seams:
        return self.executor.seams

    def problems(self) -> list[str]:
        """Configuration problems that keep capabilities from running, one line each."""
        return [
            f"{capability.name}: {problem}"
            for capability in self.registry.latest()
            for problem in capability.problems(self.settings)
        ]

    def report_problems(self) -> None:
        """Log each configuration problem once, as a long-running front end starts.

        A command run once skips this: a capability with a problem is not offered, and a
        call to it is refused with the precise reason by the capability's own check.
        """
        for problem in self.problems():
            logger.warning("configuration problem: %s", problem)


def build_runtime(
    paths: Paths | None = None,
    *,
    settings: Settings | None = None,
    overrides: Mapping[str, Any] | None = None,
    registry: Registry | None = None,
    confirmations: ConfirmationStore | None = None,
    clock: Callable[[], float] = time.time,
) -> Runtime:
    """Load settings (unless given) and wire the stores ``[state]`` asks for together.

    ``clock`` is wall-clock time for the executor and every store alike (tests move it)."""
    paths = paths or Paths.from_env()
    # Folders made by an older version, or by hand, may be readable by others.
    paths.tighten()
    settings = settings or load_settings(paths, overrides=overrides)
    stores = open_stores(settings, paths, clock=clock)
    store = confirmations or stores.confirmations
    registry = registry or BUILTIN
    people = HouseholdPolicy(stores, clock=clock)
    # The executor's parts, each given what it works on (its grants: the stores').
    expiry = ExpirySweep(registry, store, stores.audit, clock)
    executor = Executor(
        registry,
        settings=settings,
        policy=stores.policy,
        audit=stores.audit,
        confirmations=store,
        people=people,
        clock=clock,
        permission=Permission(stores.policy, people, settings),
        expiry=expiry,
        answers=Answers(registry, store, expiry, people=people, clock=clock),
        grants=stores.grants,
    )
    # web.fetch keeps a turn's pages where the process that carries the turn on finds them.
    executor.seams.provide(PAGE_CACHE, stores.pages)
    return Runtime(paths, settings, stores.policy, stores.audit, store, executor, stores, clock)
