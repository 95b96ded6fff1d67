"""An executor over in-memory stores and a clock the test moves, with its audit log read back."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from spyglass.core.audit import AuditLog
from spyglass.core.confirmation import InMemoryConfirmationStore
from spyglass.core.executor import Executor
from spyglass.core.policy import PolicyFile
from spyglass.core.registry import Registry
from spyglass.settings import Settings
from tests.support import capabilities as fixtures


def audit_events(path: Path) -> list[dict[str, Any]]:
    """The events an audit log holds, in order (none when nothing was written yet)."""
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines()]


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Harness:
    def __init__(
        self,
        tmp_path: Path,
        *caps: Any,
        delegated: frozenset[str] = frozenset(),
    ):
        self.policy = PolicyFile(tmp_path / "capabilities" / "policy.json")
        self.audit_path = tmp_path / "audit.jsonl"
        self.clock = Clock()
        self.store = InMemoryConfirmationStore(clock=self.clock)
        self.executor = Executor(
            Registry(caps or [fixtures.make()]),
            settings=Settings(),
            policy=self.policy,
            audit=AuditLog(self.audit_path),
            confirmations=self.store,
            delegated_channels=delegated,
            clock=self.clock,
        )

    def events(self) -> list[dict[str, Any]]:
        return audit_events(self.audit_path)

    def approve(self, name: str, arguments: Any, **kwargs: Any) -> Any:
        pending = self.executor.invoke(name, None, arguments, channel="test", **kwargs)
        assert pending.status == "pending_confirmation", pending
        token = pending.pending_confirmation.token
        return self.executor.invoke(
            name, None, arguments, channel="test", confirmation_token=token, **kwargs
        )
