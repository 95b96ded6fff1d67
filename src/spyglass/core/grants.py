"""Conversation grants: "Allow for this conversation", kept where every process finds it.

A grant names one conversation, one person and one capability. While it lasts, that
capability's calls in that conversation run under the ``flagged`` rule
(:mod:`spyglass.core.flagged`) for that person, whatever their approval mode: a call the
checks flag still asks. A grant lasts until the conversation has been idle for
``approvals.conversation_minutes`` (each use starts the wait again) or the person signs out
(:meth:`GrantStore.drop_person`). It never reaches another conversation or another person.

The persistent stores are in :mod:`spyglass.state.grants` (the state file, Redis).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Protocol

#: The account a grant of the local owner (nobody signed in) is kept under.
LOCAL_OWNER = ""


class GrantStore(Protocol):
    """Where conversation grants are kept, shared by every process of an install."""

    async def grant(
        self, conversation_id: str, account: str, capability: str, idle_seconds: float
    ) -> None:
        """Record (or renew) a grant that lasts ``idle_seconds`` from now."""
        ...

    async def use(
        self, conversation_id: str, account: str, capability: str, idle_seconds: float
    ) -> bool:
        """Whether the grant is live; a live one is renewed for ``idle_seconds`` from now."""
        ...

    async def drop_person(self, account: str) -> int:
        """Forget every grant of ``account`` (they signed out); how many there were."""
        ...


class InMemoryGrants:
    """Grants held in process: for tests and a single process without a state file."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self.clock = clock
        self._items: dict[tuple[str, str, str], float] = {}
        self._lock = threading.Lock()

    async def grant(
        self, conversation_id: str, account: str, capability: str, idle_seconds: float
    ) -> None:
        with self._lock:
            now = self.clock()
            self._items = {k: t for k, t in self._items.items() if t > now}
            self._items[(conversation_id, account, capability)] = now + idle_seconds

    async def use(
        self, conversation_id: str, account: str, capability: str, idle_seconds: float
    ) -> bool:
        key = (conversation_id, account, capability)
        with self._lock:
            now = self.clock()
            until = self._items.get(key)
            if until is None or until <= now:
                self._items.pop(key, None)
                return False
            self._items[key] = now + idle_seconds
            return True

    async def drop_person(self, account: str) -> int:
        with self._lock:
            gone = [k for k in self._items if k[1] == account]
            for key in gone:
                del self._items[key]
        return len(gone)
