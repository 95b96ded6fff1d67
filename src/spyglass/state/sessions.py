"""Console sessions and one-time login codes: the interfaces and the in-process stores.

The persistent stores (SQLite, Redis) are in :mod:`spyglass.state.sqlite.statefile` and
:mod:`spyglass.state.redis`; this module imports no web framework so the CLI stays light.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

LOGIN_CODE_TTL_SECONDS = 600
SESSION_TTL_SECONDS = 7 * 24 * 3600


@dataclass(frozen=True)
class Session:
    csrf_token: str
    expires_at: float


class LoginCodeStore(Protocol):
    """One-time console login codes: single use, valid for :data:`LOGIN_CODE_TTL_SECONDS`."""

    async def issue(self) -> str: ...
    async def redeem(self, code: str) -> bool: ...


class SessionStore(Protocol):
    """Console sessions: an opaque id in the cookie, the CSRF token and expiry here."""

    async def create(self) -> str: ...
    async def get(self, session_id: str) -> Session | None: ...
    async def end(self, session_id: str) -> bool:
        """Sign a session out; its cookie stops working at once. False if it was not live."""
        ...


class LoginCodes:
    """In-process login codes (a restart forgets them; the persistent stores live in
    :mod:`spyglass.state`)."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self._codes: dict[str, float] = {}
        self._lock = threading.Lock()

    async def issue(self) -> str:
        code = secrets.token_urlsafe(24)
        with self._lock:
            now = self._clock()
            self._codes = {c: t for c, t in self._codes.items() if t > now}
            self._codes[code] = now + LOGIN_CODE_TTL_SECONDS
        return code

    async def redeem(self, code: str) -> bool:
        with self._lock:
            expires = self._codes.pop(code, None)
        return expires is not None and expires > self._clock()


class Sessions:
    """Console sessions held in process: a restart signs the console out."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self._items: dict[str, Session] = {}
        self._lock = threading.Lock()

    async def create(self) -> str:
        session_id = secrets.token_urlsafe(32)
        with self._lock:
            now = self._clock()
            self._items = {k: s for k, s in self._items.items() if s.expires_at > now}
            self._items[session_id] = Session(secrets.token_urlsafe(32), now + SESSION_TTL_SECONDS)
        return session_id

    async def get(self, session_id: str) -> Session | None:
        with self._lock:
            session = self._items.get(session_id)
        if session is None or session.expires_at <= self._clock():
            return None
        return session

    async def end(self, session_id: str) -> bool:
        with self._lock:
            session = self._items.pop(session_id, None)
        return session is not None and session.expires_at > self._clock()
