"""The composition root: builds the executor and its stores from settings and paths.

Front ends (CLI, HTTP, MCP) call :func:`build_runtime` once and share what it returns.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

# httpcore asks for sniffio on every request (asyncio or trio?): installed, that is a lookup;
# missing, every request searches sys.path for it again (docs/benchmarks.md, conversation
# service). Imported here so the dependency it needs stays declared.
import sniffio  # noqa: F401

from spyglass.accounts.people import Actors, People
from spyglass.accounts.store import AccountStore
from spyglass.capabilities import BUILTIN
from spyglass.core.confirmation import ConfirmationStore
from spyglass.core.context import Seams
from spyglass.core.executor import Executor
from spyglass.core.registry import Registry
from spyglass.paths import Paths
from spyglass.settings import Settings, load_settings
from spyglass.state.pages import PAGE_CACHE
from spyglass.state.stores import AuditReader, OwnerPolicy, Stores, open_stores

logger = logging.getLogger(__name__)


@dataclass
class Runtime:
    paths: Paths
    settings: Settings
    policy: OwnerPolicy
    audit: AuditReader
    confirmations: ConfirmationStore
    executor: Executor
    stores: Stores
    _actors: Actors | None = field(default=None, repr=False)

    @property
    def accounts(self) -> AccountStore:
        return self.stores.accounts

    @property
    def actors(self) -> Actors:
        """Turns accounts into the actor references calls carry (pseudonyms cached)."""
        if self._actors is None:
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

    def clock(self) -> float:
        """Wall-clock time as the executor sees it (tests move it); every store uses it."""
        return self.executor.clock()


def build_runtime(
    paths: Paths | None = None,
    *,
    settings: Settings | None = None,
    overrides: Mapping[str, Any] | None = None,
    registry: Registry | None = None,
    confirmations: ConfirmationStore | None = None,
) -> Runtime:
    """Load settings (unless given) and wire the stores ``[state]`` asks for together."""
    paths = paths or Paths.from_env()
    # Folders made by an older version, or by hand, may be readable by others.
    paths.tighten()
    settings = settings or load_settings(paths, overrides=overrides)
    holder: list[Executor] = []
    stores = open_stores(settings, paths, clock=lambda: holder[0].clock())
    store = confirmations or stores.confirmations
    executor = Executor(
        registry or BUILTIN,
        settings=settings,
        policy=stores.policy,
        audit=stores.audit,
        confirmations=store,
        people=People(stores.accounts, clock=lambda: holder[0].clock()),
    )
    holder.append(executor)
    # web.fetch keeps a turn's pages where the process that carries the turn on finds them.
    executor.seams.provide(PAGE_CACHE, stores.pages)
    runtime = Runtime(paths, settings, stores.policy, stores.audit, store, executor, stores)
    # Reported when the settings are loaded, not after the owner approved a call; the
    # capability is not offered until it is fixed. Other commands keep working.
    for problem in runtime.problems():
        logger.warning("configuration problem: %s", problem)
    return runtime
