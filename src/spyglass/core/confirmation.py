"""Confirmation tokens: single use, short lived, bound to one exact call.

The store interface is two coroutines, implemented in process (here), in SQLite (the
embedded default, which survives a restart) and in Redis (shared by several processes; see
:mod:`spyglass.state`). Taking a token is atomic: of any number of concurrent approvals of one
token, in one process or several, exactly one receives the record. Stores that outlive the
process keep only the token's digest.
"""

from __future__ import annotations

import hashlib
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


def token_digest(token: str) -> str:
    """What a store that outlives the process keeps instead of a token: its SHA-256.

    A copy of the state file or the Redis keyspace then holds nothing that approves a call.
    """
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def record_to_json(record: PendingRecord) -> str:
    """A record as the JSON a shared or persistent store keeps (the token itself left out)."""
    return json.dumps(
        {
            "capability": record.binding.capability,
            "version": record.binding.version,
            "arguments": record.binding.arguments,
            "conversation_id": record.binding.conversation_id,
            "account_id": record.binding.account_id,
            "invocation_id": record.invocation_id,
            "expires_at": record.expires_at,
        },
        separators=(",", ":"),
        ensure_ascii=False,
    )


def record_from_json(token: str, text: str | bytes) -> PendingRecord:
    data = json.loads(text)
    binding = Binding(
        data["capability"],
        data["version"],
        data["arguments"],
        data["conversation_id"],
        # Records written before accounts existed were all the owner's.
        data.get("account_id"),
    )
    return PendingRecord(token, binding, data["invocation_id"], float(data["expires_at"]))


@dataclass(frozen=True)
class Binding:
    """What a token authorises: this capability, version, arguments and conversation, for
    this person (``account_id``; ``None`` where nobody signed in, as the local CLI)."""

    capability: str
    version: int
    arguments: str  # canonical JSON
    conversation_id: str | None
    account_id: str | None = None


@dataclass(frozen=True)
class PendingRecord:
    token: str
    binding: Binding
    invocation_id: str
    expires_at: float


class ConfirmationStore(Protocol):
    """Where pending confirmations wait: in process, in SQLite (by hash) or in Redis.

    Both methods are coroutines so a store on another server never blocks the event loop.
    ``expires_at`` is wall-clock time (``time.time``) so it means the same in every process
    and after a restart.
    """

    async def put(self, record: PendingRecord) -> None: ...

    async def take(self, token: str) -> PendingRecord | None:
        """Remove and return the record, atomically; ``None`` if unknown or already taken."""
        ...


class InMemoryConfirmationStore:
    """The embedded default: a dict under a lock, pruned of expired entries as it goes."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self._records: dict[str, PendingRecord] = {}
        self._lock = threading.Lock()

    async def put(self, record: PendingRecord) -> None:
        with self._lock:
            self._prune()
            self._records[record.token] = record

    async def take(self, token: str) -> PendingRecord | None:
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
