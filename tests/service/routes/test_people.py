"""Settings → People over the API: only an owner manages accounts."""

from __future__ import annotations

import httpx
from fastapi import FastAPI

from spyglass.accounts.roles import Role
from tests.service.household import add, bearer, console


async def test_the_owner_adds_a_person_whose_one_time_link_signs_them_in(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    added = await client.post("/api/v1/people", json={"name": "Kid", "role": "child"})
    assert added.status_code == 201, added.text
    body = added.json()
    assert (body["name"], body["role"], body["needs_approval"]) == ("kid", "child", True)
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url=str(client.base_url)
    ) as browser:
        assert (await browser.get(body["login_path"])).status_code == 303
        me = (await browser.get("/api/v1/session")).json()["account"]
        assert (me["name"], me["role"], me["manages"]) == ("kid", "child", False)
        assert (await browser.get(body["login_path"])).status_code == 401
    names = [p["name"] for p in (await client.get("/api/v1/people")).json()["people"]]
    assert names == ["owner", "kid"]


async def test_bad_people_requests_are_refused_with_what_to_fix(
    client: httpx.AsyncClient,
) -> None:
    bad_role = await client.post("/api/v1/people", json={"name": "x", "role": "admin"})
    assert bad_role.status_code == 422 and "not a role" in bad_role.json()["error"]["message"]
    await client.post("/api/v1/people", json={"name": "sam"})
    taken = await client.post("/api/v1/people", json={"name": "SAM"})
    assert taken.status_code == 422 and "already" in taken.json()["error"]["message"]
    missing = await client.patch("/api/v1/people/nobody", json={"role": "guest"})
    assert missing.status_code == 404


async def test_the_owner_changes_a_persons_limits_and_a_disabled_person_is_signed_out(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    sam = await add(app, "sam", Role.MEMBER)
    async with console(app, sam) as browser, bearer(app, sam) as script:
        changed = await client.patch(
            f"/api/v1/people/{sam.id}",
            json={"deny_domains": ["Example.com"], "daily_budget": 4, "needs_approval": True},
        )
        assert changed.status_code == 200, changed.text
        assert changed.json()["deny_domains"] == ["example.com"]
        assert changed.json()["needs_approval"] is True
        await client.patch(f"/api/v1/people/{sam.id}", json={"disabled": True})
        assert (await browser.get("/api/v1/session")).status_code == 401
        assert (await script.get("/api/v1/session")).status_code == 401


async def test_nobody_but_an_owner_may_manage_people_or_the_switches(app: FastAPI) -> None:
    for role in (Role.MEMBER, Role.CHILD, Role.GUEST):
        person = await add(app, f"p-{role.value}", role)
        async with console(app, person) as browser:
            for method, path, body in (
                ("GET", "/api/v1/people", None),
                ("POST", "/api/v1/people", {"name": "x"}),
                ("PATCH", f"/api/v1/people/{person.id}", {"role": "owner"}),
                ("POST", f"/api/v1/people/{person.id}/api-token", None),
                ("POST", "/api/v1/policy", {"web_access_enabled": True}),
                ("POST", "/api/v1/login-codes", None),
            ):
                response = await browser.request(method, path, json=body)
                assert response.status_code == 403, (role, path)
                assert response.json()["error"]["code"] == "OWNER_ONLY"


async def test_removing_a_person_keeps_or_deletes_their_conversations_as_the_owner_chose(
    app: FastAPI, client: httpx.AsyncClient, fake_model: object
) -> None:
    from tests.support.fake_model import FakeModel, text

    assert isinstance(fake_model, FakeModel)
    conversations: dict[str, str] = {}
    for name in ("keep", "drop"):
        person = await add(app, name, Role.MEMBER)
        async with bearer(app, person) as them:
            fake_model.script(text("Hi."))
            turn = (await them.post("/api/v1/conversation/message", json={"text": "hi"})).json()
            conversations[name] = turn["conversation_id"]
        choice = "keep" if name == "keep" else "delete"
        removed = await client.delete(f"/api/v1/people/{person.id}?history={choice}")
        assert removed.status_code == 204
    kept = await client.get(f"/api/v1/conversations/{conversations['keep']}")
    gone = await client.get(f"/api/v1/conversations/{conversations['drop']}")
    assert (kept.status_code, gone.status_code) == (200, 404)


async def test_a_person_stores_their_own_key_which_is_then_never_shown(app: FastAPI) -> None:
    guest = await add(app, "visitor", Role.GUEST)
    async with bearer(app, guest) as visitor:
        stored = await visitor.put("/api/v1/keys/Brave", json={"secret": "visitor-key-42"})
        assert stored.status_code == 204
        listed = await visitor.get("/api/v1/keys")
        assert listed.json() == {"providers": ["brave"]}
        assert "visitor-key-42" not in listed.text
        bad = await visitor.put("/api/v1/keys/not a name", json={"secret": "x"})
        assert bad.status_code == 422
        assert (await visitor.delete("/api/v1/keys/brave")).status_code == 204
        assert (await visitor.get("/api/v1/keys")).json() == {"providers": []}
    assert await app.state.spyglass.accounts.keys(guest.id) == {}


async def test_the_owner_sets_a_persons_own_approval_mode_and_household_takes_it_back(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    sam = await add(app, "sam", Role.MEMBER)
    changed = await client.patch(f"/api/v1/people/{sam.id}", json={"approvals_fetch": "flagged"})
    assert changed.status_code == 200, changed.text
    assert (changed.json()["approvals_fetch"], changed.json()["approvals_search"]) == (
        "flagged",
        None,
    )
    actor = await app.state.spyglass.runtime.actors.actor(
        await app.state.spyglass.accounts.get(sam.id)
    )
    assert actor.approvals == {"fetch": "flagged"}
    back = await client.patch(f"/api/v1/people/{sam.id}", json={"approvals_fetch": "household"})
    assert back.json()["approvals_fetch"] is None
    wrong = await client.patch(f"/api/v1/people/{sam.id}", json={"approvals_fetch": "never"})
    assert wrong.status_code == 422 and "approvals_fetch" in wrong.json()["error"]["message"]


async def test_signing_out_ends_the_persons_conversation_grants(app: FastAPI) -> None:
    sam = await add(app, "sam", Role.MEMBER)
    grants = app.state.spyglass.runtime.executor.grants
    await grants.grant("c1", sam.id, "web.search", 600)
    await grants.grant("c1", "someone-else", "web.search", 600)
    async with console(app, sam) as browser:
        signed_out = await browser.post("/api/v1/session/sign-out")
        assert signed_out.json() == {"signed_out": True}
    assert not await grants.use("c1", sam.id, "web.search", 600)
    assert await grants.use("c1", "someone-else", "web.search", 600)
