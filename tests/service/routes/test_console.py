"""The console's static files and the meta endpoints."""

from __future__ import annotations

import httpx
from fastapi import FastAPI

from spyglass.console import STATIC_DIR
from tests.support.service import BASE_URL


async def test_the_console_page_is_served_without_credentials(app: FastAPI) -> None:
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=BASE_URL) as c:
        page = await c.get("/")
    assert page.status_code == 200
    assert page.text == (STATIC_DIR / "index.html").read_text()


async def test_files_outside_the_static_folder_cannot_be_reached(
    client: httpx.AsyncClient,
) -> None:
    for path in ("/static/../__init__.py", "/static/%2e%2e/__init__.py", "/static/nope.js"):
        response = await client.get(path)
        assert response.status_code == 404, path


async def test_a_new_login_code_can_be_asked_for_with_the_token(
    client: httpx.AsyncClient,
) -> None:
    body = (await client.post("/api/v1/login-codes")).json()
    assert body["path"] == f"/login?code={body['code']}"
    follow = await client.get(body["path"])
    assert follow.status_code == 303


async def test_the_openapi_document_names_every_operation(client: httpx.AsyncClient) -> None:
    schema = (await client.get("/openapi.json")).json()
    operations = [op for path in schema["paths"].values() for op in path.values()]
    ids = {op["operationId"] for op in operations}
    assert {
        "sendMessage",
        "getPolicy",
        "setPolicy",
        "listCapabilities",
        "invokeCapability",
        "listConversations",
        "getConversation",
        "deleteConversation",
        "health",
        "getSession",
        "openWebUISearch",
        "openWebUILoader",
    } <= ids


async def test_signing_out_ends_the_session_on_the_service_and_clears_the_cookie(
    app: FastAPI,
) -> None:
    code = await app.state.spyglass.login_codes.issue()
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=BASE_URL) as c:
        await c.get(f"/login?code={code}")
        session_id = c.cookies["spyglass_session"]
        csrf = (await c.get("/api/v1/session")).json()["csrf_token"]
        without_csrf = await c.post("/api/v1/session/sign-out")
        signed_out = await c.post("/api/v1/session/sign-out", headers={"X-CSRF-Token": csrf})
        cleared = signed_out.headers["set-cookie"]
        # Even a client that kept the old cookie is no longer let in.
        c.cookies.set("spyglass_session", session_id)
        after = await c.get("/api/v1/policy")
    assert without_csrf.status_code == 403
    assert signed_out.status_code == 200 and signed_out.json() == {"signed_out": True}
    assert "spyglass_session=" in cleared and "Max-Age=0" in cleared
    assert after.status_code == 401
