"""Which confirmations an executor issued, so the ones nobody answers can be audited.

The confirmation store only answers ``take``; this keeps, per executor, the tokens it issued
with their expiry and channel until an answer settles them or they are found expired, and
remembers found-expired tokens for a while so a late answer is told "expired", not "unknown".
"""

from __future__ import annotations

import threading


class IssuedTokens:
    """Tokens issued and not yet settled, and tokens recently found expired."""

    def __init__(self, remember_seconds: float) -> None:
        self.remember_seconds = remember_seconds
        self._issued: dict[str, tuple[float, str]] = {}
        self._expired: dict[str, float] = {}
        self._lock = threading.Lock()

    def issue(self, token: str, expires_at: float, channel: str) -> None:
        with self._lock:
            self._issued[token] = (expires_at, channel)

    def settle(self, token: str) -> str | None:
        """Forget an answered token; the channel it was issued on, if this one issued it."""
        with self._lock:
            issued = self._issued.pop(token, None)
        return issued[1] if issued else None

    def due(self, now: float) -> dict[str, str]:
        """Remove and return the issued tokens past their expiry (token → channel)."""
        with self._lock:
            tokens = [t for t, (expires, _) in self._issued.items() if expires < now]
            due = {t: self._issued.pop(t)[1] for t in tokens}
            cutoff = now - self.remember_seconds
            for token in [t for t, when in self._expired.items() if when < cutoff]:
                del self._expired[token]
        return due

    def expired(self, token: str, now: float) -> None:
        """Remember that ``token`` was found expired unanswered."""
        with self._lock:
            self._expired[token] = now

    def was_expired(self, token: str) -> bool:
        with self._lock:
            return token in self._expired
