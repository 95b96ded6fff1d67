"""What a capability sees while it runs: its arguments, its turn and its seams."""

from __future__ import annotations

import threading
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from spyglass.core.actor import Actor
from spyglass.core.policy import PolicySource
from spyglass.settings import Settings

T = TypeVar("T")


class SeamKey(Generic[T]):
    """Names one injectable service and how to build its default from the settings."""

    def __init__(self, name: str, default: Callable[[Settings], T]) -> None:
        self.name = name
        self.default = default

    def __repr__(self) -> str:
        return f"SeamKey({self.name!r})"


class Seams:
    """A small typed container of the seams capabilities use (resolver, dialler, providers).

    Production code gets the defaults built from settings; tests ``provide`` a real
    implementation of the same interface (a loopback dialler, a recorded provider).
    """

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._items: dict[SeamKey[Any], Any] = {}
        self._lock = threading.Lock()

    def provide(self, key: SeamKey[T], value: T) -> None:
        with self._lock:
            self._items[key] = value

    def get(self, key: SeamKey[T]) -> T:
        with self._lock:
            if key not in self._items:
                self._items[key] = key.default(self.settings)
            value: T = self._items[key]
            return value


@dataclass
class Turn:
    """One conversation turn: per-capability invocation counts and a cache for the turn.

    Capabilities may keep data in ``cache`` for the rest of the turn (fetch keeps extracted
    text so later parts need no new download). A fresh ``Turn`` is used when none is given.
    """

    conversation_id: str | None = None
    id: str = field(default_factory=lambda: uuid.uuid4().hex)
    counts: Counter[str] = field(default_factory=Counter)
    cache: dict[str, Any] = field(default_factory=dict)
    #: What the user wrote in this conversation (and other non-web content in it), for the
    #: privacy check of outgoing queries and URLs. Filled by the conversation layer.
    private_texts: tuple[str, ...] = ()
    #: Where URLs seen in this conversation came from (``spyglass.privacy.provenance.Source``
    #: records, oldest first), for provenance mode and the approval card. Filled by the
    #: conversation layer.
    sources: list[Any] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def would_exceed(self, name: str, limit: int) -> bool:
        with self._lock:
            return self.counts[name] >= limit

    def reserve(self, name: str, limit: int) -> bool:
        """Count one invocation of ``name``; ``False`` when the turn's limit is reached."""
        with self._lock:
            if self.counts[name] >= limit:
                return False
            self.counts[name] += 1
            return True


@dataclass
class InvocationContext:
    """Passed to a capability's handler. ``provider`` is set by the handler when one ran."""

    arguments: dict[str, Any]
    invocation_id: str
    channel: str
    turn: Turn
    settings: Settings
    seams: Seams
    policy: PolicySource
    max_result_bytes: int
    provider: str | None = None
    #: True on a channel whose approval is delegated to its host (nobody here sees the call).
    delegated: bool = False
    #: The person the call is made for; ``None`` where nobody signed in (the local CLI).
    actor: Actor | None = None
