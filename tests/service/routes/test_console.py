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


async def test_a_password_signs_its_person_in_and_a_wrong_one_says_only_that_it_is_wrong(
    app: FastAPI,
) -> None:
    from spyglass.accounts.passwords import hash_password
    from spyglass.accounts.roles import Role
    from tests.service.household import add

    sam = await add(app, "sam", Role.MEMBER)
    await app.state.spyglass.accounts.set_password(sam.id, hash_password("correct horse battery"))
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url=BASE_URL
    ) as browser:
        answers = [
            await browser.post("/api/v1/session/password", json=body)
            for body in (
                {"name": "sam", "password": "wrong horse battery"},
                {"name": "nobody", "password": "correct horse battery"},
                {"name": "owner", "password": "correct horse battery"},
            )
        ]
        assert [a.status_code for a in answers] == [401, 401, 401]
        assert len({a.json()["error"]["message"] for a in answers}) == 1
        assert (await browser.get("/api/v1/session")).status_code == 401
        ok = await browser.post(
            "/api/v1/session/password", json={"name": "SAM", "password": "correct horse battery"}
        )
        assert ok.status_code == 200 and "HttpOnly" in ok.headers["set-cookie"]
        assert (await browser.get("/api/v1/session")).json()["account"]["name"] == "sam"


async def test_a_persons_own_provider_key_is_never_in_any_answer(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    from spyglass.accounts.roles import Role
    from tests.service.household import add, bearer

    sam = await add(app, "sam", Role.MEMBER)
    await app.state.spyglass.accounts.set_key(sam.id, "brave", "sams-brave-key-0123")
    answers = [
        await client.get("/api/v1/people"),
        await client.patch(f"/api/v1/people/{sam.id}", json={"owner_keys": False}),
    ]
    async with bearer(app, sam) as sams:
        answers.append(await sams.get("/api/v1/session"))
    assert all(a.status_code == 200 for a in answers)
    assert not any("sams-brave-key" in a.text for a in answers)
