"""A child's call waits for an owner or a parent, who answers it from their own console."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
from fastapi import FastAPI

from spyglass.accounts.roles import Role
from spyglass.core.confirmation import TOKEN_TTL_SECONDS
from spyglass.runtime import Runtime
from tests.service.household import add, bearer, console, token_client
from tests.support.fake_model import FakeModel, text, tool_call, tool_calls
from tests.support.service import Clock
from tests.support.web import LoopbackWeb

URL = "/api/v1/conversation/message"


async def child_asks(kid: httpx.AsyncClient, fake_model: FakeModel) -> dict[str, Any]:
    fake_model.script(tool_call("web_search", {"query": "otters"}), text("Otters swim."))
    response = await kid.post(URL, json={"text": "Tell me about otters"})
    assert response.status_code == 200, response.text
    turn: dict[str, Any] = response.json()
    assert turn["pending_confirmation"] is not None
    return turn


def answer(turn: dict[str, Any], approve: bool = True) -> dict[str, Any]:
    return {
        "conversation_id": turn["conversation_id"],
        "confirmation": {"token": turn["pending_confirmation"]["token"], "approve": approve},
    }


async def answer_is_denied(
    kid: httpx.AsyncClient, turn: dict[str, Any], fake_model: FakeModel, reply: str
) -> None:
    """The child's answer to ``turn`` is heard as a denied call (the model then says
    ``reply``)."""
    fake_model.script(text(reply))
    done = await kid.post(URL, json=answer(turn))
    assert done.status_code == 200
    assert done.json()["events"][-1]["status"] == "denied"


@asynccontextmanager
async def kid_waits_for_owner(
    app: FastAPI, api_token: str, fake_model: FakeModel
) -> AsyncIterator[tuple[httpx.AsyncClient, httpx.AsyncClient, dict[str, Any], dict[str, Any]]]:
    """A child's console and the owner's client, once the child's call waits in the owner's
    queue: (kid, owner, the child's turn, the call as the owner's queue shows it)."""
    kid_account = await add(app, "kid", Role.CHILD)
    async with console(app, kid_account) as kid, token_client(app, api_token) as owner:
        turn = await child_asks(kid, fake_model)
        [call] = (await owner.get("/api/v1/approvals")).json()["calls"]
        yield kid, owner, turn, call


async def test_a_childs_call_runs_once_after_the_parent_approves_it_from_their_console(
    app: FastAPI, web_on: Runtime, fake_model: FakeModel, web: LoopbackWeb
) -> None:
    kid_account = await add(app, "kid", Role.CHILD)
    parent_account = await add(app, "mum", Role.MEMBER)
    await app.state.spyglass.accounts.update(parent_account.id, parent=True)
    async with console(app, kid_account) as kid, console(app, parent_account) as mum:
        turn = await child_asks(kid, fake_model)
        assert turn["pending_confirmation"]["waiting_for"] == "an owner or a parent (owner, mum)"

        early = await kid.post(URL, json=answer(turn))
        assert early.status_code == 409 and early.json()["error"]["code"] == "AWAITING_APPROVAL"

        queue = (await mum.get("/api/v1/approvals")).json()
        assert queue["may_approve"] is True
        [call] = queue["calls"]
        assert (call["person"], call["capability"], call["arguments"]) == (
            "kid",
            "web.search",
            {"query": "otters"},
        )
        assert "token" not in str(queue)
        approved = await mum.post(f"/api/v1/approvals/{call['id']}", json={"approve": True})
        assert approved.status_code == 200 and approved.json()["decision"] == "approved"
        again = await mum.post(f"/api/v1/approvals/{call['id']}", json={"approve": True})
        assert again.status_code == 404

        done = await kid.post(URL, json=answer(turn))
        assert done.status_code == 200, done.text
        assert done.json()["text"] == "Otters swim."
        replay = await kid.post(URL, json=answer(turn))
        assert replay.status_code == 400
    assert web.hits["/search"] == 1


async def test_a_waiting_persons_unknown_token_is_refused_as_unknown_not_awaiting_approval(
    app: FastAPI, web_on: Runtime, fake_model: FakeModel, web: LoopbackWeb, api_token: str
) -> None:
    async with kid_waits_for_owner(app, api_token, fake_model) as (kid, _owner, turn, _call):
        guessed = {
            "conversation_id": turn["conversation_id"],
            "confirmation": {"token": "not-a-token-anyone-was-given", "approve": True},
        }
        response = await kid.post(URL, json=guessed)
        assert response.status_code == 400, response.text
        assert response.json()["error"]["code"] != "AWAITING_APPROVAL"
        # The real call still waits for its approver.
        early = await kid.post(URL, json=answer(turn))
        assert early.status_code == 409 and early.json()["error"]["code"] == "AWAITING_APPROVAL"
    assert web.hits["/search"] == 0


async def test_a_call_the_parent_declined_never_runs(
    app: FastAPI, web_on: Runtime, fake_model: FakeModel, web: LoopbackWeb, api_token: str
) -> None:
    async with kid_waits_for_owner(app, api_token, fake_model) as (kid, owner, turn, call):
        declined = await owner.post(f"/api/v1/approvals/{call['id']}", json={"approve": False})
        assert declined.json()["decision"] == "denied"
        await answer_is_denied(kid, turn, fake_model, "I could not search.")
    assert web.hits["/search"] == 0


async def test_a_waiting_call_nobody_answered_in_time_can_no_longer_be_approved(
    app: FastAPI,
    web_on: Runtime,
    fake_model: FakeModel,
    web: LoopbackWeb,
    api_token: str,
    clock: Clock,
) -> None:
    async with kid_waits_for_owner(app, api_token, fake_model) as (kid, owner, turn, call):
        clock.now += TOKEN_TTL_SECONDS + 1
        late = await owner.post(f"/api/v1/approvals/{call['id']}", json={"approve": True})
        assert late.status_code == 404
        assert (await owner.get("/api/v1/approvals")).json()["calls"] == []
        await answer_is_denied(kid, turn, fake_model, "Too late.")
    assert web.hits["/search"] == 0


async def test_only_owners_and_parents_answer_and_never_their_own_or_by_guessing(
    app: FastAPI, web_on: Runtime, fake_model: FakeModel
) -> None:
    kid_account = await add(app, "kid", Role.CHILD)
    member_account = await add(app, "sam", Role.MEMBER)
    async with bearer(app, kid_account) as kid, bearer(app, member_account) as sam:
        await child_asks(kid, fake_model)
        own = (await kid.get("/api/v1/approvals")).json()
        assert own["may_approve"] is False and len(own["calls"]) == 1
        call_id = own["calls"][0]["id"]
        for client in (kid, sam):
            refused = await client.post(f"/api/v1/approvals/{call_id}", json={"approve": True})
            assert refused.status_code == 403
        # A member sees nobody else's waiting calls.
        assert (await sam.get("/api/v1/approvals")).json()["calls"] == []
    async with bearer(app, await app.state.spyglass.accounts.get("owner")) as owner:
        guessed = await owner.post("/api/v1/approvals/" + "0" * 32, json={"approve": True})
        assert guessed.status_code == 404


async def test_each_waiting_call_of_a_child_s_round_goes_to_the_queue_and_one_batch_runs_them(
    app: FastAPI, web_on: Runtime, fake_model: FakeModel, web: LoopbackWeb, api_token: str
) -> None:
    kid_account = await add(app, "kid", Role.CHILD)
    async with console(app, kid_account) as kid, token_client(app, api_token) as owner:
        fake_model.script(
            tool_calls(
                ("web_search", {"query": "otters"}, "c1"),
                ("web_search", {"query": "beavers"}, "c2"),
                style="openai",
            ),
            text("Otters swim; no beavers."),
        )
        turn = (await kid.post(URL, json={"text": "otters and beavers"})).json()
        cards = turn["pending_confirmations"]
        assert [c["waiting_for"] is not None for c in cards] == [True, True]
        calls = (await owner.get("/api/v1/approvals")).json()["calls"]
        assert sorted(c["arguments"]["query"] for c in calls) == ["beavers", "otters"]
        by_query = {c["arguments"]["query"]: c for c in calls}
        body = {
            "conversation_id": turn["conversation_id"],
            "confirmations": [{"token": c["token"], "approve": True} for c in cards],
        }
        await owner.post(f"/api/v1/approvals/{by_query['otters']['id']}", json={"approve": True})
        early = await kid.post(URL, json=body)
        assert early.status_code == 409 and early.json()["error"]["code"] == "AWAITING_APPROVAL"
        await owner.post(f"/api/v1/approvals/{by_query['beavers']['id']}", json={"approve": False})
        done = await kid.post(URL, json=body)
        assert done.status_code == 200, done.text
        assert [e["status"] for e in done.json()["events"]] == ["ok", "denied"]
    assert web.hits["/search"] == 1


async def test_a_parent_can_approve_a_childs_call_for_the_rest_of_the_conversation(
    app: FastAPI, api_token: str, web_on: Runtime, fake_model: FakeModel
) -> None:
    grants = web_on.executor.grants
    async with kid_waits_for_owner(app, api_token, fake_model) as (_kid, owner, turn, call):
        kid_id = (await app.state.spyglass.accounts.find("kid")).id
        conversation = turn["conversation_id"]
        approved = await owner.post(
            f"/api/v1/approvals/{call['id']}", json={"approve": True, "scope": "conversation"}
        )
        assert approved.status_code == 200
        assert approved.json()["scope"] == "conversation"
        assert await grants.use(conversation, kid_id, "web.search", 60)
        assert not await grants.use("another", kid_id, "web.search", 60)
        assert not await grants.use(conversation, kid_id, "web.fetch", 60)


async def test_a_childs_own_answer_for_the_conversation_grants_nothing(
    app: FastAPI, api_token: str, web_on: Runtime, fake_model: FakeModel
) -> None:
    grants = web_on.executor.grants
    async with kid_waits_for_owner(app, api_token, fake_model) as (kid, owner, turn, call):
        kid_id = (await app.state.spyglass.accounts.find("kid")).id
        await owner.post(f"/api/v1/approvals/{call['id']}", json={"approve": True})
        fake_model.script(text("Otters swim."))
        body = answer(turn)
        body["confirmation"]["scope"] = "conversation"
        done = await kid.post(URL, json=body)
        assert done.status_code == 200 and done.json()["text"] == "Otters swim."
        assert not await grants.use(turn["conversation_id"], kid_id, "web.search", 60)
