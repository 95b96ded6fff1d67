"""Who may call the service, and as whom: API tokens, one-time login codes, session cookies.

- The owner's API token lives in ``$SPYGLASS_HOME/api-token`` (created 0600 on first start);
  every other person's comes from ``spyglass users api-token NAME``. Both are sent as
  ``Authorization: Bearer``.
- ``spyglass serve`` prints a one-time URL ``/login?code=…`` for the owner and ``spyglass
  users add|login-link`` one for a person (single use, 10 minutes); it swaps the code for an
  HttpOnly, SameSite=Strict session cookie bound to that person.
- A request authenticated by cookie that changes something must carry ``X-CSRF-Token``.
- Every authenticated request carries its :class:`Principal` (the person and their actor
  reference) in ``request.state.principal``.
"""

from __future__ import annotations

import hmac
import os
import secrets
from dataclasses import dataclass
from pathlib import Path

from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Receive, Scope, Send

from spyglass.accounts.model import OWNER_ID, Account
from spyglass.accounts.people import Actors, ProfileRead, read_profile, today
from spyglass.accounts.store import API_TOKEN, AccountStore
from spyglass.core.actor import Actor
from spyglass.errors import StoreUnavailable
from spyglass.paths import make_private_dir
from spyglass.service.errors import ApiError, error_response
from spyglass.state.sessions import (
    SessionStore,
)

COOKIE = "spyglass_session"
CSRF_HEADER = "X-CSRF-Token"
MUTATING = frozenset({"POST", "PUT", "PATCH", "DELETE"})
#: What a caller without working credentials is told, by default (the service's).
UNAUTHORIZED = (
    "missing or wrong credentials: send Authorization: Bearer <token> with the token from "
    "$SPYGLASS_HOME/api-token, or open the console link that `spyglass serve` prints"
)


def load_or_create_token(path: Path) -> str:
    """The API token in ``path``, created with mode 0600 when missing or empty."""
    try:
        token = path.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        token = ""
    if token:
        return token
    make_private_dir(path.parent)
    token = secrets.token_urlsafe(32)
    # Written to a 0600 temp file and renamed, so the token is never readable by others.
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(token + "\n")
    os.replace(tmp, path)
    return token


@dataclass(frozen=True)
class Principal:
    """An authenticated caller: who they are and the actor their calls carry;
    ``csrf_token`` is set for console sessions."""

    kind: str  # "bearer" or "cookie"
    account: Account
    actor: Actor
    csrf_token: str | None = None


class Authenticator:
    def __init__(
        self,
        token: str,
        sessions: SessionStore,
        accounts: AccountStore,
        actors: Actors | None = None,
        *,
        unauthorized: str = UNAUTHORIZED,
    ) -> None:
        self.token = token
        self.sessions = sessions
        self.accounts = accounts
        self.actors = actors or Actors(accounts)
        #: The 401's message: how this front end's callers send their credentials.
        self.unauthorized = unauthorized

    async def identify(self, request: HTTPConnection) -> Principal | None:
        try:
            return await self._identify(request)
        except StoreUnavailable as exc:
            raise ApiError(
                503,
                "STORE_UNAVAILABLE",
                f"credentials cannot be checked: the {exc.store} state store cannot be "
                "reached; try again once it is back",
            ) from None

    async def _identify(self, request: HTTPConnection) -> Principal | None:
        header = request.headers.get("authorization", "")
        scheme, _, value = header.partition(" ")
        if scheme.lower() == "bearer" and value.strip():
            sent = value.strip()
            if hmac.compare_digest(sent.encode(), self.token.encode()):
                # The token file is the owner's, as it was before accounts existed. Read
                # with the rest of their profile: the same trip, and it answers the check
                # of a call this request makes at once (the approved one, say).
                read = await read_profile(self.accounts, OWNER_ID, today(self.accounts.clock))
                account = None if read is None else read.account
                return await self._principal("bearer", account, read=read)
            return await self._principal("bearer", await self.accounts.resolve(API_TOKEN, sent))
        session_id = request.cookies.get(COOKIE)
        if session_id:
            session = await self.sessions.get(session_id)
            if session is None:
                return None
            bound = await self.accounts.session(session_id)
            # A session from before accounts existed has no person bound to it: it is the
            # owner's (only the owner could sign in then).
            account = await self.accounts.get(OWNER_ID) if bound == "unbound" else bound
            return await self._principal("cookie", account, session.csrf_token)
        return None

    async def _principal(
        self,
        kind: str,
        account: Account | None,
        csrf: str | None = None,
        *,
        read: ProfileRead | None = None,
    ) -> Principal | None:
        if account is None or account.disabled:
            return None
        return Principal(kind, account, await self.actors.actor(account, read), csrf)

    async def require(self, request: HTTPConnection, method: str) -> Principal:
        """The caller, or 401; cookie callers of a mutating method also need the CSRF header."""
        principal = await self.identify(request)
        if principal is None:
            raise ApiError(
                401, "UNAUTHORIZED", self.unauthorized, headers={"WWW-Authenticate": "Bearer"}
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


#: Reachable without credentials: health, the console's page and files, the login link and
#: the password sign-in.
PUBLIC_PATHS = frozenset(
    {"/api/v1/health", "/", "/login", "/favicon.ico", "/api/v1/session/password"}
)


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
                principal = await self.authenticator.require(HTTPConnection(scope), scope["method"])
            except ApiError as exc:
                response = error_response(exc.status, exc.code, exc.message, exc.headers)
                await response(scope, receive, send)
                return
            scope.setdefault("state", {})["principal"] = principal
        await self.app(scope, receive, send)
