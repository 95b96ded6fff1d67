"""The console's page and files, the one-time login link, the session and health."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import (
    FileResponse,
    HTMLResponse,
    JSONResponse,
    RedirectResponse,
    Response,
)

from spyglass.accounts.model import OWNER_ID, Account
from spyglass.accounts.passwords import dummy_hash, verify_password
from spyglass.accounts.store import LOGIN, SESSION
from spyglass.console import STATIC_DIR
from spyglass.core.policy import WEB_ACCESS, policy_problem
from spyglass.errors import StoreUnavailable
from spyglass.llm.naming import model_problem
from spyglass.service.auth import COOKIE
from spyglass.service.errors import ApiError
from spyglass.service.models import PasswordLogin
from spyglass.service.state import Caller, ServiceState, State, require_owner
from spyglass.state.sessions import SESSION_TTL_SECONDS
from spyglass.version import __version__

logger = logging.getLogger(__name__)

router = APIRouter()

#: How much longer a session's binding to its person is kept than the session itself.
BINDING_GRACE_SECONDS = 24 * 3600

EXPIRED_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Spyglass: link expired</title></head>
<body><h1>This console link was already used or has expired</h1>
<p>Each link printed by <code>spyglass serve</code> works once, for 10 minutes.
To get a new one, run <code>spyglass serve --print-login-url</code> in a terminal on this
computer while the service runs (or restart <code>spyglass serve</code>), then open the link it
prints.</p></body></html>
"""


@router.get(
    "/api/v1/health", operation_id="health", tags=["meta"], summary="Liveness and each store"
)
async def health(state: State) -> Response:
    stores = await state.runtime.stores.health()
    problem = model_problem(state.runtime.settings.llm)
    ok = all(store["status"] == "ok" for store in stores.values())
    body = {
        "status": "ok" if ok else "degraded",
        "version": __version__,
        "backend": state.runtime.stores.backend,
        "stores": stores,
        # Problems name settings only (never values or keys), so they may be shown
        # unauthenticated.
        "problems": state.runtime.problems(),
        # Whether llm.model is set (never the name itself: this answer needs no credentials).
        "model": {"set": problem is None, "problem": problem},
    }
    # 503 while a store is down, so a load balancer sends requests to a healthy process.
    return JSONResponse(body, status_code=200 if ok else 503)


@router.get(
    "/api/v1/session", operation_id="getSession", tags=["meta"], summary="The caller's session"
)
async def session(principal: Caller, state: State) -> dict[str, Any]:
    csrf = principal.csrf_token or ""
    problem = policy_problem(state.runtime.policy)
    account = principal.account
    return {
        "csrf_token": csrf,
        "web_access_enabled": state.runtime.policy.read()[WEB_ACCESS],
        "policy_problem": problem.to_dict() if problem is not None else None,
        "version": __version__,
        # Who is signed in and what the console should offer them.
        "account": {
            "name": account.name,
            "role": account.role.value,
            "manages": account.manages,
            "may_approve": account.may_approve,
            "needs_approval": account.needs_approval,
            "capabilities": sorted(account.capabilities),
        },
    }


@router.post(
    "/api/v1/session/sign-out",
    operation_id="signOut",
    tags=["meta"],
    summary="End the console session: its cookie stops working at once",
)
async def sign_out(request: Request, state: State) -> Response:
    session_id = request.cookies.get(COOKIE)
    if session_id and await state.sessions.get(session_id) is not None:
        await _drop_grants(state, session_id)
    ended = await state.sessions.end(session_id) if session_id else False
    response = JSONResponse({"signed_out": ended})
    response.delete_cookie(COOKIE, path="/", httponly=True, samesite="strict")
    return response


async def _drop_grants(state: ServiceState, session_id: str) -> None:
    """Signing out ends the person's "Allow for this conversation" grants, everywhere."""
    try:
        bound = await state.accounts.session(session_id)
        person = OWNER_ID if bound == "unbound" else bound.id if bound is not None else None
        if person is not None:
            await state.runtime.executor.grants.drop_person(person)
    except StoreUnavailable as exc:
        # The sign-out itself still ends the session; the grants lapse when idle.
        logger.warning("grants of a person signing out could not be dropped: %s", exc.message)


@router.post(
    "/api/v1/login-codes",
    operation_id="createLoginCode",
    tags=["meta"],
    summary="A new one-time console login code (what `spyglass serve --print-login-url` uses)",
)
async def create_login_code(principal: Caller, state: State) -> dict[str, Any]:
    require_owner(principal)
    code = await state.login_codes.issue()
    return {"code": code, "path": f"/login?code={code}", "expires_in_seconds": 600}


@router.get("/login", include_in_schema=False)
async def login(state: State, code: Annotated[str, Query(max_length=200)] = "") -> Response:
    account = await state.accounts.resolve(LOGIN, code, consume=True) if code else None
    # The link `spyglass serve` prints is the owner's.
    if account is None and code and await state.login_codes.redeem(code):
        account = await state.accounts.get(OWNER_ID)
    if account is None or account.disabled:
        return HTMLResponse(EXPIRED_PAGE, status_code=401)
    return await _signed_in(state, account, RedirectResponse("/", status_code=303))


@router.post(
    "/api/v1/session/password",
    operation_id="signInWithPassword",
    tags=["meta"],
    summary="Sign in to the console with an account's name and password",
)
async def password_login(body: PasswordLogin, state: State) -> Response:
    found = await state.accounts.password(body.name)
    # The same answer for an unknown name, a wrong password and an account with none, and
    # the same work (one verification), so neither names nor passwords can be probed.
    hashed = found[1] if found is not None else dummy_hash()
    ok = await asyncio.to_thread(verify_password, hashed, body.password)
    if found is None or not ok or found[0].disabled:
        raise ApiError(401, "UNAUTHORIZED", "wrong name or password")
    return await _signed_in(state, found[0], JSONResponse({"signed_in": found[0].name}))


async def _signed_in(state: State, account: Account, response: Response) -> Response:
    """``response`` with a new session cookie bound to ``account``."""
    session_id = await state.sessions.create()
    # The binding outlives the session, so a live session is never found unbound.
    expires = state.runtime.clock() + SESSION_TTL_SECONDS + BINDING_GRACE_SECONDS
    await state.accounts.bind(session_id, account.id, SESSION, expires)
    response.set_cookie(
        COOKIE,
        session_id,
        max_age=SESSION_TTL_SECONDS,
        httponly=True,
        samesite="strict",
        path="/",
    )
    return response


def _static(path: Path) -> Response:
    base = STATIC_DIR.resolve()
    target = path.resolve()
    if not target.is_relative_to(base) or not target.is_file():
        raise ApiError(404, "NOT_FOUND", "no such console file")
    return FileResponse(target, headers={"Cache-Control": "no-cache"})


@router.get("/", include_in_schema=False)
def index() -> Response:
    return _static(STATIC_DIR / "index.html")


@router.get("/static/{file_path:path}", include_in_schema=False)
def static(file_path: str) -> Response:
    return _static(STATIC_DIR / file_path)
