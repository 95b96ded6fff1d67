"""The household on the shared backend: accounts in PostgreSQL, sessions in Redis, through the
real service, with a second service process's view of the same state."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from fastapi import FastAPI

from spyglass.accounts.roles import Role
from spyglass.core.policy import WEB_ACCESS
from spyglass.paths import Paths
from spyglass.runtime import build_runtime
from spyglass.service.app import create_app
from tests.service.household import add, bearer, console
from tests.support.fake_model import FakeModel, text, tool_call
from tests.support.service import PORT
from tests.support.web import WEB_BASE, LoopbackWeb, fixture_registry

URL = "/api/v1/conversation/message"


def shared_app(
    home: Path, redis_url: str, database_url: str, model: FakeModel, web: LoopbackWeb
) -> FastAPI:
    runtime = build_runtime(
        Paths(home),
        overrides={
            "llm.base_url": model.base_url,
            "llm.model": "fake",
            "state.backend": "shared",
            "state.redis_url": redis_url,
            "state.database_url": database_url,
        },
        registry=fixture_registry(),
    )
    runtime.seams.provide(WEB_BASE, web.base_url)
    runtime.stores.upgrade()
    runtime.policy.set(WEB_ACCESS, True)
    return create_app(runtime, port=PORT, api_token="shared-owner-token-0123456789abcdef")


@pytest.fixture
async def apps(
    tmp_path: Path,
    redis_url: str,
    database_url: str,
    fake_model: FakeModel,
    web: LoopbackWeb,
) -> AsyncIterator[tuple[FastAPI, FastAPI]]:
    one = shared_app(tmp_path / "one", redis_url, database_url, fake_model, web)
    two = shared_app(tmp_path / "two", redis_url, database_url, fake_model, web)
    yield one, two
    for app in (one, two):
        await app.state.spyglass.aclose()


async def test_a_childs_call_queued_at_one_process_is_approved_at_the_other_and_runs_once(
    apps: tuple[FastAPI, FastAPI], fake_model: FakeModel, web: LoopbackWeb
) -> None:
    one, two = apps
    kid = await add(one, "kid", Role.CHILD)
    async with (
        console(one, kid) as kids,
        bearer(two, await two.state.spyglass.accounts.get("owner")) as owner,
    ):
        fake_model.script(tool_call("web_search", {"query": "otters"}), text("Otters."))
        turn = (await kids.post(URL, json={"text": "otters?"})).json()
        [call] = (await owner.get("/api/v1/approvals")).json()["calls"]
        assert call["person"] == "kid"
        answer = await owner.post(f"/api/v1/approvals/{call['id']}", json={"approve": True})
        assert answer.status_code == 200
        done = await kids.post(
            URL,
            json={
                "conversation_id": turn["conversation_id"],
                "confirmation": {"token": turn["pending_confirmation"]["token"], "approve": True},
            },
        )
        assert done.status_code == 200 and done.json()["text"] == "Otters."
    assert web.hits["/search"] == 1


async def test_conversations_stay_private_across_processes(
    apps: tuple[FastAPI, FastAPI], fake_model: FakeModel
) -> None:
    one, two = apps
    sam, pat = await add(one, "sam", Role.MEMBER), await add(one, "pat", Role.MEMBER)
    async with bearer(one, sam) as sams, bearer(two, pat) as pats:
        fake_model.script(text("Hi."))
        cid = (await sams.post(URL, json={"text": "zebra"})).json()["conversation_id"]
        assert (await pats.get(f"/api/v1/conversations/{cid}")).status_code == 404
        assert (await pats.get("/api/v1/conversations")).json()["conversations"] == []
    async with bearer(two, sam) as sams_elsewhere:
        found = (await sams_elsewhere.get("/api/v1/conversations")).json()["conversations"]
        assert [c["id"] for c in found] == [cid]


async def test_a_parents_allow_for_this_conversation_at_one_process_holds_at_the_other(
    apps: tuple[FastAPI, FastAPI], fake_model: FakeModel, web: LoopbackWeb
) -> None:
    one, two = apps
    kid = await add(one, "kid", Role.CHILD)
    async with (
        console(one, kid) as kids,
        bearer(two, await two.state.spyglass.accounts.get("owner")) as owner,
    ):
        fake_model.script(tool_call("web_search", {"query": "otters"}))
        turn = (await kids.post(URL, json={"text": "otters?"})).json()
        [call] = (await owner.get("/api/v1/approvals")).json()["calls"]
        answer = await owner.post(
            f"/api/v1/approvals/{call['id']}", json={"approve": True, "scope": "conversation"}
        )
        assert answer.json()["scope"] == "conversation"
    grants = one.state.spyglass.runtime.executor.grants
    assert type(grants).__name__ == "RedisGrants"
    assert await grants.use(turn["conversation_id"], kid.id, "web.search", 60)
    assert not await grants.use(turn["conversation_id"], kid.id, "web.fetch", 60)
