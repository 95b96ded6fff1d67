"""Isolation: a person's conversations, searches and receipts are theirs; ids of others'
answer as unknown ones do (404, never 403), whether guessed, swapped or replayed."""

from __future__ import annotations

from typing import Any

import httpx
from fastapi import FastAPI

from spyglass.accounts.roles import Role
from spyglass.runtime import Runtime
from tests.service.household import add, bearer
from tests.support.fake_model import FakeModel, text, tool_call
from tests.support.web import LoopbackWeb

URL = "/api/v1/conversation/message"


async def say(client: httpx.AsyncClient, fake_model: FakeModel, words: str) -> dict[str, Any]:
    fake_model.script(text(f"You said {words}."))
    response = await client.post(URL, json={"text": words})
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


async def test_a_member_cannot_read_search_delete_or_continue_anothers_conversation(
    app: FastAPI, fake_model: FakeModel
) -> None:
    sam, pat = await add(app, "sam", Role.MEMBER), await add(app, "pat", Role.MEMBER)
    async with bearer(app, sam) as sams, bearer(app, pat) as pats:
        mine = await say(sams, fake_model, "zebra secrets")
        cid = mine["conversation_id"]
        unknown = "f" * 32
        for target in (cid, unknown):
            read = await pats.get(f"/api/v1/conversations/{target}")
            delete = await pats.delete(f"/api/v1/conversations/{target}")
            share = await pats.put(f"/api/v1/conversations/{target}/shared", json={"shared": True})
            cont = await pats.post(URL, json={"conversation_id": target, "text": "more"})
            assert [r.status_code for r in (read, delete, share, cont)] == [404] * 4
            # Another's id answers exactly as an unknown one: nothing about it leaks.
            assert read.json()["error"]["code"] == "NOT_FOUND"
        assert (await pats.get("/api/v1/conversations", params={"q": "zebra"})).json()[
            "conversations"
        ] == []
        assert (await pats.get("/api/v1/conversations")).json()["conversations"] == []
        found = (await sams.get("/api/v1/conversations", params={"q": "zebra"})).json()
        assert [c["id"] for c in found["conversations"]] == [cid]
        assert (await sams.get(f"/api/v1/conversations/{cid}")).status_code == 200


async def test_a_pending_call_cannot_be_answered_by_another_person(
    app: FastAPI, web_on: Runtime, fake_model: FakeModel, web: LoopbackWeb
) -> None:
    sam, pat = await add(app, "sam", Role.MEMBER), await add(app, "pat", Role.MEMBER)
    async with bearer(app, sam) as sams, bearer(app, pat) as pats:
        fake_model.script(tool_call("web_search", {"query": "otters"}), text("Done."))
        turn = (await sams.post(URL, json={"text": "otters?"})).json()
        token = turn["pending_confirmation"]["token"]
        own = (await say(pats, fake_model, "hello"))["conversation_id"]
        for conversation in (turn["conversation_id"], own):
            stolen = await pats.post(
                URL,
                json={
                    "conversation_id": conversation,
                    "confirmation": {"token": token, "approve": True},
                },
            )
            assert stolen.status_code == 400
            assert stolen.json()["error"]["code"] == "INVALID_CONFIRMATION"
        direct = await pats.post(
            "/api/v1/capabilities/web.search/invoke",
            json={
                "arguments": {"query": "otters"},
                "confirmation": {"token": token, "approve": True},
            },
        )
        assert direct.status_code == 400
        assert web.hits["/search"] == 0
        fake_model.script(text("Otters."))
        mine = await sams.post(
            URL,
            json={
                "conversation_id": turn["conversation_id"],
                "confirmation": {"token": token, "approve": True},
            },
        )
        assert mine.status_code == 200 and web.hits["/search"] == 1


async def test_the_owner_sees_everyones_receipts_but_not_their_conversations_unless_shared(
    app: FastAPI, web_on: Runtime, fake_model: FakeModel, client: httpx.AsyncClient
) -> None:
    sam = await add(app, "sam", Role.MEMBER)
    async with bearer(app, sam) as sams:
        fake_model.script(tool_call("web_search", {"query": "otters"}), text("Done."))
        turn = (await sams.post(URL, json={"text": "private words about otters"})).json()
        fake_model.script(text("Otters."))
        await sams.post(
            URL,
            json={
                "conversation_id": turn["conversation_id"],
                "confirmation": {"token": turn["pending_confirmation"]["token"], "approve": True},
            },
        )
        cid = turn["conversation_id"]
        receipts = (await client.get("/api/v1/receipts")).json()["receipts"]
        assert [r["person"] for r in receipts] == ["sam"]
        assert "private words" not in str(receipts) and cid not in str(receipts)
        assert (await client.get("/api/v1/conversations")).json()["conversations"] == []
        assert (await client.get(f"/api/v1/conversations/{cid}")).status_code == 404
        shared = await sams.put(f"/api/v1/conversations/{cid}/shared", json={"shared": True})
        assert shared.status_code == 200
        assert (await client.get(f"/api/v1/conversations/{cid}")).status_code == 200
        # Sharing lets the owner read, never continue or delete.
        assert (await client.delete(f"/api/v1/conversations/{cid}")).status_code == 404
        own = (await sams.get("/api/v1/receipts")).json()["receipts"]
        assert [r["conversation_id"] for r in own] == [cid]


async def test_a_guests_conversation_is_not_kept(app: FastAPI, fake_model: FakeModel) -> None:
    guest = await add(app, "visitor", Role.GUEST)
    async with bearer(app, guest) as visitor:
        turn = await say(visitor, fake_model, "hello")
        assert (await visitor.get("/api/v1/conversations")).json()["conversations"] == []
        assert (
            await visitor.get(f"/api/v1/conversations/{turn['conversation_id']}")
        ).status_code == 404
