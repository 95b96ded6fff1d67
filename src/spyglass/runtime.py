"""The composition root: builds the executor and its stores from settings and paths.

Front ends (CLI, HTTP, MCP) call :func:`build_runtime` once and share what it returns.
"""

from __future__ import annotations

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
    # Folders made by an older version, or by hand, may be readable by others.
    paths.tighten()
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
    return Runtime(paths, settings, policy, audit, store, executor)
