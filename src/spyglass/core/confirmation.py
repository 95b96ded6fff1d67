"""Confirmation tokens: single use, short lived, bound to one exact call.

The store interface is three coroutines, implemented in process (here), in SQLite (the
embedded default, which survives a restart) and in Redis (shared by several processes; see
:mod:`spyglass.state`). Taking a token is atomic: of any number of concurrent approvals of one
token, in one process or several, exactly one receives the record. Claiming the expiry of a
card nobody answered is atomic too, so it is audited once, by whichever process sweeps first,
even when the process that issued it is gone. Stores that outlive the process keep only the
token's digest.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from spyglass.core.records import RecordCodec

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


#: How far an approval reaches: this one call, or (in a conversation Spyglass runs) this
#: call and later calls of the same capability in the same conversation.
Scope = Literal["call", "conversation"]


@dataclass(frozen=True)
class ConfirmationReply:
    """A person's answer to one card: its token, yes or no, and how far a yes reaches."""

    token: str
    approve: bool
    scope: Scope = "call"


@dataclass(frozen=True)
class StoredConfirmation:
    """A confirmation as a store that outlives the process keeps it (``schema`` 1).

    Never the token: the store keys the record by the token's digest. Whether its expiry was
    audited is the store's own column.
    """

    capability: str
    version: int
    arguments: str
    conversation_id: str | None
    invocation_id: str
    expires_at: float
    #: Records written before accounts existed were all the owner's.
    account_id: str | None = None
    #: Records written before the channel was kept were audited as "unknown".
    channel: str = ""


CONFIRMATION = RecordCodec(StoredConfirmation, version=1)


def record_to_json(record: PendingRecord) -> str:
    """A record as the JSON a shared or persistent store keeps (the token itself left out)."""
    binding = record.binding
    return CONFIRMATION.dumps(
        StoredConfirmation(
            capability=binding.capability,
            version=binding.version,
            arguments=binding.arguments,
            conversation_id=binding.conversation_id,
            invocation_id=record.invocation_id,
            expires_at=record.expires_at,
            account_id=binding.account_id,
            channel=record.channel,
        )
    )


def record_from_json(
    token: str, text: str | bytes, *, expiry_audited: bool = False
) -> PendingRecord:
    """The record a store kept; ``token`` is ``""`` when the store knows only its digest."""
    stored = CONFIRMATION.loads(text)
    binding = Binding(
        stored.capability,
        stored.version,
        stored.arguments,
        stored.conversation_id,
        stored.account_id,
    )
    return PendingRecord(
        token,
        binding,
        stored.invocation_id,
        stored.expires_at,
        channel=stored.channel,
        expiry_audited=expiry_audited,
    )


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
    #: The channel the card was shown on, for the audit event of its expiry.
    channel: str = ""
    #: Set on a taken record whose expiry a sweep has already audited.
    expiry_audited: bool = False


class Taken:
    """A token's record taken from its store by the caller, in the same transaction as the
    paused turn it answers (one store trip instead of two): the executor's confirm stage
    uses it instead of taking the token itself. ``record`` is ``None`` when the store had no
    such token (unknown, or already answered)."""

    __slots__ = ("record", "used")

    def __init__(self, record: PendingRecord | None) -> None:
        self.record = record
        #: Set once the confirm stage has used it; a record never used is put back.
        self.used = False

    def use(self) -> PendingRecord | None:
        self.used = True
        return self.record

    def __repr__(self) -> str:  # the token itself is never shown
        return f"Taken(found={self.record is not None}, used={self.used})"


class ConfirmationStore(Protocol):
    """Where pending confirmations wait: in process, in SQLite (by hash) or in Redis.

    Both methods are coroutines so a store on another server never blocks the event loop.
    ``expires_at`` is wall-clock time (``time.time``) so it means the same in every process
    and after a restart.
    """

    async def put(self, record: PendingRecord) -> None: ...

    async def take(self, token: str) -> PendingRecord | None:
        """Remove and return the record, atomically; ``None`` if unknown or already taken.

        A record is kept for a grace period past its expiry, so that a late answer is told
        "expired"; ``expiry_audited`` says whether a sweep already audited that expiry.
        """
        ...

    async def claim_expired(self, now: float, limit: int) -> list[PendingRecord]:
        """Mark up to ``limit`` records past their expiry and not yet taken or claimed as
        claimed, atomically, and return them (``token`` left empty): of any number of
        processes sweeping at once, exactly one receives each."""
        ...


#: How many expired cards one store call claims; a sweep repeats until fewer come back.
CLAIM_BATCH = 100


class InMemoryConfirmationStore:
    """The in-process store: a dict under a lock, pruned of audited expired entries."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self._records: dict[str, PendingRecord] = {}
        self._audited: set[str] = set()
        self._lock = threading.Lock()

    async def put(self, record: PendingRecord) -> None:
        with self._lock:
            self._prune()
            self._records[record.token] = record

    async def take(self, token: str) -> PendingRecord | None:
        with self._lock:
            record = self._records.pop(token, None)
            audited = token in self._audited
            self._audited.discard(token)
        if record is None:
            return None
        return dataclasses.replace(record, expiry_audited=audited)

    async def claim_expired(self, now: float, limit: int) -> list[PendingRecord]:
        with self._lock:
            found: list[PendingRecord] = []
            for token, record in self._records.items():
                if len(found) >= limit:
                    break
                if record.expires_at < now and token not in self._audited:
                    self._audited.add(token)
                    found.append(dataclasses.replace(record, token=""))
            return found

    def __len__(self) -> int:
        with self._lock:
            return len(self._records)

    def _prune(self) -> None:
        # Keep expired records a little longer so their approval reports "expired", not
        # "unknown"; past that grace they are dropped to bound memory, once their expiry has
        # been audited (a sweep claims the others first).
        cutoff = self._clock() - TOKEN_TTL_SECONDS
        stale = [
            t for t, r in self._records.items() if r.expires_at < cutoff and t in self._audited
        ]
        for token in stale:
            del self._records[token]
            self._audited.discard(token)
