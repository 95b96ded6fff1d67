"""The history endpoints over turns made through the message endpoint."""

from __future__ import annotations

import httpx

from spyglass.paths import Paths
from spyglass.runtime import Runtime, build_runtime
from spyglass.service.app import create_app
from tests.support.fake_model import FakeModel, text, tool_call
from tests.support.service import BASE_URL, PORT


async def test_a_conversation_round_trips_and_search_finds_user_words_not_web_text(
    client: httpx.AsyncClient, fake_model: FakeModel, web_on: Runtime
) -> None:
    fake_model.script(tool_call("web_search", {"query": "otters"}), text("Otters are mustelids."))
    first = (
        await client.post("/api/v1/conversation/message", json={"text": "Tell me about otters"})
    ).json()
    cid = first["conversation_id"]
    await client.post(
        "/api/v1/conversation/message",
        json={
            "conversation_id": cid,
            "confirmation": {"token": first["pending_confirmation"]["token"], "approve": True},
        },
    )
    conversation = (await client.get(f"/api/v1/conversations/{cid}")).json()
    assert conversation["title"] == "Tell me about otters"
    user, assistant = conversation["messages"]
    assert user == {
        "role": "user",
        "text": "Tell me about otters",
        "events": [],
        "citations": [],
        "created_at": user["created_at"],
    }
    assert assistant["text"] == "Otters are mustelids."
    assert assistant["events"][0]["status"] == "ok"
    assert assistant["citations"][0]["url"] == "https://example.org/1"

    found = (await client.get("/api/v1/conversations", params={"q": "otters"})).json()
    assert [c["id"] for c in found["conversations"]] == [cid]
    assert (await client.get("/api/v1/conversations", params={"q": "mustelids"})).json()[
        "conversations"
    ]
    # "snippet" only ever appeared in the search results (web text).
    web_only = (await client.get("/api/v1/conversations", params={"q": "snippet"})).json()
    assert web_only == {"conversations": []}


async def test_deleting_a_conversation_answers_204_then_404(
    client: httpx.AsyncClient, fake_model: FakeModel
) -> None:
    fake_model.script(text("hi"))
    cid = (await client.post("/api/v1/conversation/message", json={"text": "hello"})).json()[
        "conversation_id"
    ]
    assert (await client.delete(f"/api/v1/conversations/{cid}")).status_code == 204
    assert (await client.get(f"/api/v1/conversations/{cid}")).status_code == 404
    assert (await client.delete(f"/api/v1/conversations/{cid}")).status_code == 404
    assert (await client.get("/api/v1/conversations")).json() == {"conversations": []}


async def test_continuing_an_unknown_conversation_is_404(client: httpx.AsyncClient) -> None:
    response = await client.post(
        "/api/v1/conversation/message", json={"conversation_id": "nope", "text": "hi"}
    )
    assert response.status_code == 404
    assert "leave out conversation_id" in response.json()["error"]["message"]


async def test_with_history_off_nothing_is_listed_or_stored(
    paths: Paths, fake_model: FakeModel
) -> None:
    runtime = build_runtime(
        paths, overrides={"history.enabled": False, "llm.base_url": fake_model.base_url}
    )
    app = create_app(runtime, port=PORT)
    fake_model.script(text("hi"))
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app),
        base_url=BASE_URL,
        headers={"Authorization": f"Bearer {app.state.spyglass.auth.token}"},
    ) as client:
        answer = await client.post("/api/v1/conversation/message", json={"text": "private"})
        listed = await client.get("/api/v1/conversations")
        one = await client.get(f"/api/v1/conversations/{answer.json()['conversation_id']}")
    await app.state.spyglass.aclose()
    assert answer.json()["text"] == "hi"
    assert listed.json() == {"conversations": []}
    assert one.status_code == 404
    assert not runtime.paths.database_file.exists()
