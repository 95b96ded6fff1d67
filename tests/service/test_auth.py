"""Credentials: API token, one-time login codes, session cookie, CSRF."""

from __future__ import annotations

import stat
from pathlib import Path

import httpx
from fastapi import FastAPI
from starlette.requests import HTTPConnection

from spyglass.accounts.model import OWNER_ID
from spyglass.accounts.people import ProfileRead
from spyglass.llm.naming import model_problem
from spyglass.paths import Paths
from spyglass.service.auth import load_or_create_token
from spyglass.state.sqlite.migrations import STATE_MIGRATIONS as MIGRATIONS
from tests.support.service import BASE_URL
from tests.support.stores import LiveStores


def anonymous(app: FastAPI) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=BASE_URL)


def test_the_token_file_is_created_once_with_mode_0600(tmp_path: Path) -> None:
    path = tmp_path / "home" / "api-token"
    token = load_or_create_token(path)
    assert len(token) >= 40
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert load_or_create_token(path) == token


async def test_a_login_code_works_once_and_expires_after_ten_minutes(live: LiveStores) -> None:
    codes = live.login_codes
    used, late = await codes.issue(), await codes.issue()
    assert await codes.redeem(used) is True
    assert await codes.redeem(used) is False
    live.clock.now += 601
    assert await codes.redeem(late) is False
    assert await codes.redeem("never-issued") is False


async def test_a_session_is_found_until_it_expires_and_only_by_its_id(live: LiveStores) -> None:
    session_id = await live.sessions.create()
    session = await live.sessions.get(session_id)
    assert session is not None and len(session.csrf_token) >= 32
    assert await live.sessions.get(session_id + "x") is None
    live.clock.now += 7 * 24 * 3600 + 1
    assert await live.sessions.get(session_id) is None


async def test_a_session_made_by_one_process_is_valid_in_another(live: LiveStores) -> None:
    other = live.other()
    session_id = await live.sessions.create()
    code = await live.login_codes.issue()
    assert await other.sessions.get(session_id) == await live.sessions.get(session_id)
    assert await other.login_codes.redeem(code) is True
    assert await live.login_codes.redeem(code) is False


async def test_missing_or_wrong_credentials_get_401_json(app: FastAPI) -> None:
    async with anonymous(app) as client:
        missing = await client.get("/api/v1/policy")
        wrong = await client.get("/api/v1/policy", headers={"Authorization": "Bearer nope"})
        cookie = await client.get("/api/v1/session", headers={"Cookie": "spyglass_session=forged"})
    for response in (missing, wrong, cookie):
        assert response.status_code == 401
        assert response.json()["error"]["code"] == "UNAUTHORIZED"
        assert "api-token" in response.json()["error"]["message"]


async def test_health_needs_no_credentials(app: FastAPI) -> None:
    async with anonymous(app) as client:
        response = await client.get("/api/v1/health")
    assert response.json() == {
        "status": "ok",
        "version": "0.1.0",
        "backend": "embedded",
        "stores": {"sqlite": {"status": "ok", "version": len(MIGRATIONS)}},
        "problems": [],
        "model": {"set": True, "problem": None},
    }


async def test_the_login_link_sets_a_strict_httponly_cookie_and_redirects(app: FastAPI) -> None:
    code = await app.state.spyglass.login_codes.issue()
    async with anonymous(app) as client:
        response = await client.get(f"/login?code={code}")
        assert response.status_code == 303 and response.headers["location"] == "/"
        cookie = response.headers["set-cookie"]
        assert "spyglass_session=" in cookie and "HttpOnly" in cookie
        assert "SameSite=strict" in cookie and "Path=/" in cookie
        session = await client.get("/api/v1/session")
        assert session.status_code == 200
        assert set(session.json()) == {
            "csrf_token",
            "web_access_enabled",
            "policy_problem",
            "version",
            "account",
        }
        # The link `spyglass serve` prints signs the owner in.
        assert session.json()["account"]["role"] == "owner"
        again = await client.get(f"/login?code={code}")
    assert again.status_code == 401
    assert "text/html" in again.headers["content-type"]
    assert "spyglass serve --print-login-url" in again.text


async def test_a_cookie_session_needs_the_csrf_header_to_change_anything(app: FastAPI) -> None:
    code = await app.state.spyglass.login_codes.issue()
    async with anonymous(app) as client:
        await client.get(f"/login?code={code}")
        csrf = (await client.get("/api/v1/session")).json()["csrf_token"]
        refused = await client.post("/api/v1/policy", json={"web_access_enabled": True})
        forged = await client.post(
            "/api/v1/policy", json={"web_access_enabled": True}, headers={"X-CSRF-Token": "x"}
        )
        allowed = await client.post(
            "/api/v1/policy", json={"web_access_enabled": True}, headers={"X-CSRF-Token": csrf}
        )
        reading = await client.get("/api/v1/policy")
    assert refused.status_code == forged.status_code == 403
    assert refused.json()["error"]["code"] == "CSRF_FAILED"
    assert allowed.json()["web_access_enabled"] is True
    assert reading.status_code == 200


async def test_a_bearer_caller_needs_no_csrf_header(client: httpx.AsyncClient) -> None:
    response = await client.post("/api/v1/policy", json={"web_access_enabled": True})
    assert response.status_code == 200
    session = await client.get("/api/v1/session")
    assert session.json()["web_access_enabled"] is True


async def test_health_lists_configuration_problems_by_setting_never_by_value(
    paths: Paths,
) -> None:
    from spyglass.runtime import build_runtime
    from spyglass.service.app import create_app

    runtime = build_runtime(
        paths, overrides={"search.providers": "searxng", "fetch.providers": "firecrawl"}
    )
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=create_app(runtime, port=8092)),
        base_url="http://127.0.0.1:8092",
    ) as client:
        body = (await client.get("/api/v1/health")).json()
    assert any("search.searxng.base_url" in p for p in body["problems"]), body
    assert any("fetch.firecrawl.api_key" in p for p in body["problems"]), body
    assert body["model"] == {"set": False, "problem": model_problem(runtime.settings.llm)}


async def test_health_says_a_model_is_set_without_naming_it(paths: Paths) -> None:
    from spyglass.runtime import build_runtime
    from spyglass.service.app import create_app

    runtime = build_runtime(paths, overrides={"llm.model": "secret-model-name"})
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=create_app(runtime, port=8092)),
        base_url="http://127.0.0.1:8092",
    ) as client:
        response = await client.get("/api/v1/health")
    assert response.json()["model"] == {"set": True, "problem": None}
    assert "secret-model-name" not in response.text


async def test_the_owners_token_is_checked_with_a_profile_read_their_calls_checks_can_use(
    app: FastAPI,
) -> None:
    auth = app.state.spyglass.auth
    scope = {
        "type": "http",
        "method": "POST",
        "path": "/api/v1/conversation/message",
        "headers": [(b"authorization", f"Bearer {auth.token}".encode())],
    }
    principal = await auth.identify(HTTPConnection(scope))
    assert principal is not None and principal.account.id == OWNER_ID
    read = principal.actor.read
    assert isinstance(read, ProfileRead)
    assert read.account == principal.account
    assert read.serves(OWNER_ID, read.day)
