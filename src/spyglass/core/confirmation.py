"""Confirmation tokens: single use, short lived, bound to one exact call.

The store interface is two methods so a shared store (Redis) can replace the in-process one
when several service processes run. Taking a token is atomic: of any number of concurrent
approvals of one token, exactly one receives the record.
"""

from __future__ import annotations

import json
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

TOKEN_TTL_SECONDS = 120
TOKEN_BYTES = 24  # 192 bits, above the 128 the contract asks for


def canonical_json(value: Any) -> str:
    """The one canonical spelling of arguments that a token is bound to."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


@dataclass(frozen=True)
class Binding:
    """What a token authorises: this capability, version, arguments and conversation."""

    capability: str
    version: int
    arguments: str  # canonical JSON
    conversation_id: str | None


@dataclass(frozen=True)
class PendingRecord:
    token: str
    binding: Binding
    invocation_id: str
    expires_at: float


class ConfirmationStore(Protocol):
    """Where pending confirmations wait. Never persisted to disk."""

    def put(self, record: PendingRecord) -> None: ...

    def take(self, token: str) -> PendingRecord | None:
        """Remove and return the record, atomically; ``None`` if unknown or already taken."""
        ...


class InMemoryConfirmationStore:
    """The embedded default: a dict under a lock, pruned of expired entries as it goes."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._records: dict[str, PendingRecord] = {}
        self._lock = threading.Lock()

    def put(self, record: PendingRecord) -> None:
        with self._lock:
            self._prune()
            self._records[record.token] = record

    def take(self, token: str) -> PendingRecord | None:
        with self._lock:
            return self._records.pop(token, None)

    def __len__(self) -> int:
        with self._lock:
            return len(self._records)

    def _prune(self) -> None:
        # Keep expired records a little longer so their approval reports "expired", not
        # "unknown"; past that grace they are dropped to bound memory.
        cutoff = self._clock() - TOKEN_TTL_SECONDS
        stale = [t for t, r in self._records.items() if r.expires_at < cutoff]
        for token in stale:
            del self._records[token]
