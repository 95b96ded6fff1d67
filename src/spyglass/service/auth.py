"""Who may call the service: the API token, one-time console login codes, session cookies.

- The API token lives in ``$SPYGLASS_HOME/api-token`` (created 0600 on first start) and is
  sent as ``Authorization: Bearer``.
- ``spyglass serve`` prints a one-time URL ``/login?code=…`` (single use, 10 minutes) that
  swaps the code for an HttpOnly, SameSite=Strict session cookie.
- A request authenticated by cookie that changes something must carry ``X-CSRF-Token``.
"""

from __future__ import annotations

import hmac
import os
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Receive, Scope, Send

from spyglass.service.errors import ApiError, error_response

COOKIE = "spyglass_session"
CSRF_HEADER = "X-CSRF-Token"
LOGIN_CODE_TTL_SECONDS = 600
SESSION_TTL_SECONDS = 7 * 24 * 3600
MUTATING = frozenset({"POST", "PUT", "PATCH", "DELETE"})


def load_or_create_token(path: Path) -> str:
    """The API token in ``path``, created with mode 0600 when missing or empty."""
    try:
        token = path.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        token = ""
    if token:
        return token
    path.parent.mkdir(parents=True, exist_ok=True)
    token = secrets.token_urlsafe(32)
    # Written to a 0600 temp file and renamed, so the token is never readable by others.
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(token + "\n")
    os.replace(tmp, path)
    return token


class LoginCodes:
    """One-time codes for the console URL: single use, valid for 10 minutes."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._codes: dict[str, float] = {}
        self._lock = threading.Lock()

    def issue(self) -> str:
        code = secrets.token_urlsafe(24)
        with self._lock:
            now = self._clock()
            self._codes = {c: t for c, t in self._codes.items() if t > now}
            self._codes[code] = now + LOGIN_CODE_TTL_SECONDS
        return code

    def redeem(self, code: str) -> bool:
        with self._lock:
            expires = self._codes.pop(code, None)
        return expires is not None and expires > self._clock()


@dataclass(frozen=True)
class Session:
    csrf_token: str
    expires_at: float


class Sessions:
    """Console sessions held in process: a restart signs the console out."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._items: dict[str, Session] = {}
        self._lock = threading.Lock()

    def create(self) -> str:
        session_id = secrets.token_urlsafe(32)
        with self._lock:
            now = self._clock()
            self._items = {k: s for k, s in self._items.items() if s.expires_at > now}
            self._items[session_id] = Session(secrets.token_urlsafe(32), now + SESSION_TTL_SECONDS)
        return session_id

    def get(self, session_id: str) -> Session | None:
        with self._lock:
            session = self._items.get(session_id)
        if session is None or session.expires_at <= self._clock():
            return None
        return session

    def end(self, session_id: str) -> bool:
        """Sign a session out; its cookie stops working at once. False if it was not live."""
        with self._lock:
            session = self._items.pop(session_id, None)
        return session is not None and session.expires_at > self._clock()


@dataclass(frozen=True)
class Principal:
    """An authenticated caller; ``csrf_token`` is set for console sessions."""

    kind: str  # "bearer" or "cookie"
    csrf_token: str | None = None


class Authenticator:
    def __init__(self, token: str, sessions: Sessions) -> None:
        self.token = token
        self.sessions = sessions

    def identify(self, request: HTTPConnection) -> Principal | None:
        header = request.headers.get("authorization", "")
        scheme, _, value = header.partition(" ")
        if scheme.lower() == "bearer" and value.strip():
            if hmac.compare_digest(value.strip().encode(), self.token.encode()):
                return Principal("bearer")
            return None
        session_id = request.cookies.get(COOKIE)
        if session_id:
            session = self.sessions.get(session_id)
            if session is not None:
                return Principal("cookie", session.csrf_token)
        return None

    def require(self, request: HTTPConnection, method: str) -> Principal:
        """The caller, or 401; cookie callers of a mutating method also need the CSRF header."""
        principal = self.identify(request)
        if principal is None:
            raise ApiError(
                401,
                "UNAUTHORIZED",
                "missing or wrong credentials: send Authorization: Bearer <token> with the "
                "token from $SPYGLASS_HOME/api-token, or open the console link that "
                "`spyglass serve` prints",
                headers={"WWW-Authenticate": "Bearer"},
            )
        if principal.kind == "cookie" and method in MUTATING:
            sent = request.headers.get(CSRF_HEADER, "")
            expected = principal.csrf_token or ""
            if not sent or not hmac.compare_digest(sent.encode(), expected.encode()):
                raise ApiError(
                    403,
                    "CSRF_FAILED",
                    f"this request needs the {CSRF_HEADER} header with the csrf_token from "
                    "GET /api/v1/session",
                )
        return principal


#: Reachable without credentials: health, the console's page and files, and the login link.
PUBLIC_PATHS = frozenset({"/api/v1/health", "/", "/login", "/favicon.ico"})


def is_public(path: str) -> bool:
    return path in PUBLIC_PATHS or path.startswith("/static/")


class AuthGate:
    """Checks credentials (and CSRF) before a request body is even read."""

    def __init__(self, app: ASGIApp, authenticator: Authenticator) -> None:
        self.app = app
        self.authenticator = authenticator

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not is_public(scope["path"]):
            try:
                self.authenticator.require(HTTPConnection(scope), scope["method"])
            except ApiError as exc:
                response = error_response(exc.status, exc.code, exc.message, exc.headers)
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)
