"""The composition root: builds the executor and its stores from settings and paths.

Front ends (CLI, HTTP, MCP) call :func:`build_runtime` once and share what it returns.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from spyglass.capabilities import BUILTIN
from spyglass.core.audit import AuditLog
from spyglass.core.confirmation import ConfirmationStore, InMemoryConfirmationStore
from spyglass.core.context import Services
from spyglass.core.executor import Executor
from spyglass.core.policy import PolicyFile
from spyglass.core.registry import Registry
from spyglass.paths import Paths
from spyglass.settings import Settings, load_settings

logger = logging.getLogger(__name__)


@dataclass
class Runtime:
    paths: Paths
    settings: Settings
    policy: PolicyFile
    audit: AuditLog
    confirmations: ConfirmationStore
    executor: Executor

    @property
    def registry(self) -> Registry:
        return self.executor.registry

    @property
    def services(self) -> Services:
        return self.executor.services

    def problems(self) -> list[str]:
        """Configuration problems that keep capabilities from running, one line each."""
        return [
            f"{capability.name}: {problem}"
            for capability in self.registry.latest()
            for problem in capability.problems(self.settings)
        ]


def build_runtime(
    paths: Paths | None = None,
    *,
    settings: Settings | None = None,
    overrides: Mapping[str, Any] | None = None,
    registry: Registry | None = None,
    confirmations: ConfirmationStore | None = None,
) -> Runtime:
    """Load settings (unless given) and wire the embedded defaults together."""
    paths = paths or Paths.from_env()
    settings = settings or load_settings(paths, overrides=overrides)
    policy = PolicyFile(paths.policy_file)
    audit = AuditLog(paths.audit_file)
    store = confirmations or InMemoryConfirmationStore()
    executor = Executor(
        registry or BUILTIN,
        settings=settings,
        policy=policy,
        audit=audit,
        confirmations=store,
    )
    runtime = Runtime(paths, settings, policy, audit, store, executor)
    # Reported when the settings are loaded, not after the owner approved a call; the
    # capability is not offered until it is fixed. Other commands keep working.
    for problem in runtime.problems():
        logger.warning("configuration problem: %s", problem)
    return runtime
