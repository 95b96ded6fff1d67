"""The embedded state file: a restart keeps console sessions and turns paused for approval."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from spyglass.core.policy import WEB_ACCESS, PolicyFile
from spyglass.paths import Paths
from spyglass.runtime import build_runtime
from spyglass.service.app import create_app
from tests.support.fake_model import FakeModel, Reply, text, tool_call
from tests.support.searxng import SearXNGShaped
from tests.support.serve_process import ServeProcess
from tests.support.service import BASE_URL, PORT, Clock

MESSAGE = "/api/v1/conversation/message"
TOKEN = "embedded-api-token-for-the-tests-0123456789abc"


def brain(body: dict[str, Any]) -> Reply:
    if body["messages"][-1]["role"] == "tool":
        return text("Otters are mustelids.")
    return tool_call("web_search", {"query": "otters"})


@pytest.fixture
def model() -> Iterator[FakeModel]:
    with FakeModel(default=brain) as server:
        yield server


@pytest.fixture
def searxng() -> Iterator[SearXNGShaped]:
    with SearXNGShaped() as server:
        yield server


def settings_env(model: FakeModel, searxng: SearXNGShaped) -> dict[str, str]:
    return {
        "SPYGLASS_LLM__BASE_URL": model.base_url,
        "SPYGLASS_LLM__MODEL": "fake",
        "SPYGLASS_SEARCH__PROVIDERS": "searxng",
        "SPYGLASS_SEARCH__SEARXNG__BASE_URL": searxng.base_url,
    }


def approval(turn: dict[str, Any]) -> dict[str, Any]:
    token = turn["pending_confirmation"]["token"]
    return {
        "conversation_id": turn["conversation_id"],
        "confirmation": {"token": token, "approve": True},
    }


async def test_a_restart_keeps_the_console_session_and_a_turn_waiting_for_approval(
    tmp_path: Path, model: FakeModel, searxng: SearXNGShaped
) -> None:
    home = tmp_path / "home"
    PolicyFile(Paths(home).policy_file).set(WEB_ACCESS, True)
    env = settings_env(model, searxng)
    with ServeProcess(home, env, api_token=TOKEN) as before:
        async with before.client() as client:
            paused = (await client.post(MESSAGE, json={"text": "Tell me about otters"})).json()
            code = (await client.post("/api/v1/login-codes")).json()["code"]
        async with httpx.AsyncClient(trust_env=False) as browser:
            login = await browser.get(f"{before.base_url}/login?code={code}")
        cookie = login.cookies["spyglass_session"]
        before.kill()  # no clean shutdown: nothing may depend on one
    with ServeProcess(home, env, api_token=TOKEN) as after:
        async with httpx.AsyncClient(trust_env=False) as browser:
            session = await browser.get(
                f"{after.base_url}/api/v1/session",
                headers={"Cookie": f"spyglass_session={cookie}"},
            )
        async with after.client() as client:
            done = await client.post(MESSAGE, json=approval(paused))
    assert session.status_code == 200 and session.json()["csrf_token"]
    assert done.status_code == 200, done.text
    assert done.json()["text"] == "Otters are mustelids."
    assert searxng.queries == ["otters"]
    state_file = (home / "state.db").read_bytes()
    for wal in home.glob("state.db-wal"):
        state_file += wal.read_bytes()
    # Kept as digests: the file approves nothing and signs nobody in.
    assert paused["pending_confirmation"]["token"].encode() not in state_file
    assert cookie.encode() not in state_file


async def test_after_a_restart_an_approval_still_expires_on_time(
    paths: Paths, model: FakeModel, searxng: SearXNGShaped
) -> None:
    overrides = {
        "llm.base_url": model.base_url,
        "llm.model": "fake",
        "search.providers": "searxng",
        "search.searxng.base_url": searxng.base_url,
    }
    answers = []
    paused: dict[str, Any] = {}
    for step in ("pause", "approve"):
        # Wall-clock time, as stored; the restart happens 121 s after the pause.
        clock = Clock(1_800_000_000.0 + (121 if step == "approve" else 0))
        runtime = build_runtime(paths, overrides=overrides, clock=clock)
        runtime.policy.set(WEB_ACCESS, True)
        app = create_app(runtime, port=PORT, api_token=TOKEN)
        transport = httpx.ASGITransport(app=app)
        headers = {"Authorization": f"Bearer {TOKEN}"}
        async with httpx.AsyncClient(transport=transport, base_url=BASE_URL, headers=headers) as c:
            if step == "pause":
                paused = (await c.post(MESSAGE, json={"text": "Tell me about otters"})).json()
            else:
                answers.append(await c.post(MESSAGE, json=approval(paused)))
        await app.state.spyglass.aclose()
    assert paused["pending_confirmation"]["expires_in_seconds"] == 120
    # A late answer continues the turn with the call recorded as expired (docs/decisions.md):
    # nothing runs, and the conversation is not left dead.
    assert answers[0].status_code == 200, answers[0].text
    [event] = [e for e in answers[0].json()["events"] if e.get("capability") == "web.search"]
    assert event["status"] == "denied" and event.get("code") == "INVALID_CONFIRMATION", event
    assert searxng.queries == []


async def test_two_workers_serve_one_home_and_share_its_state(
    tmp_path: Path, model: FakeModel, searxng: SearXNGShaped
) -> None:
    home = tmp_path / "home"
    PolicyFile(Paths(home).policy_file).set(WEB_ACCESS, True)
    with ServeProcess(home, settings_env(model, searxng), api_token=TOKEN, workers=2) as serve:
        # New connections each time, so the kernel spreads them over both workers.
        results = []
        for _ in range(4):
            async with serve.client() as client:
                paused = (await client.post(MESSAGE, json={"text": "otters?"})).json()
            async with serve.client() as client:
                results.append(await client.post(MESSAGE, json=approval(paused)))
    assert [r.status_code for r in results] == [200] * 4
    assert searxng.queries == ["otters"] * 4


async def test_the_claim_of_a_paused_turn_checks_whose_conversation_it_is_in_the_same_step(
    tmp_path: Path,
) -> None:
    from spyglass.accounts.store import AccountStore
    from spyglass.conversation.pending import PausedTurn, TurnState
    from spyglass.core.context import Turn
    from spyglass.state.sqlite.accounts import SQLiteRunner
    from spyglass.state.sqlite.statefile import SQLitePendingTurnStore, StateDB

    clock = Clock(1000.0)
    db = StateDB(tmp_path / "state.db", clock)
    accounts = AccountStore(SQLiteRunner(db), clock)
    pending = SQLitePendingTurnStore(db, 30.0)
    other = SQLitePendingTurnStore(StateDB(tmp_path / "other.db", clock), 30.0)
    try:
        assert pending.checks_holders(accounts)
        assert not other.checks_holders(accounts)  # another file: asked separately
        state = TurnState(conversation_id="c1", turn_id="t", messages=[], turn=Turn("c1"))
        await pending.put(PausedTurn("tok", state, 1100))
        await accounts.claim("c1", "kid")
        # Another person's conversation answers as a foreign one, and stays unclaimed.
        assert await pending.take("tok", "c1", holder="owner") is None
        assert await pending.take("tok", "c1", holder="kid") is not None
        # A conversation nobody claimed is nobody's, as AccountStore.holder reads it.
        state = TurnState(conversation_id="c2", turn_id="t", messages=[], turn=Turn("c2"))
        await pending.put(PausedTurn("tok2", state, 1100))
        assert await pending.take("tok2", "c2", holder="kid") is None
        assert await pending.take("tok2", "c2", holder="owner") is None
    finally:
        db.close()
        other.db.close()


async def test_a_turn_and_its_token_stored_by_the_release_before_versioned_records_still_load(
    tmp_path: Path,
) -> None:
    """A state file written before stored records carried a schema version: its paused turn
    and its confirmation are read as version 1 and carry on."""
    import json

    from spyglass.conversation.stored import TURN_STATE, state_from_json
    from spyglass.core.confirmation import token_digest
    from spyglass.state.sqlite.statefile import (
        SQLiteConfirmationStore,
        SQLitePendingTurnStore,
        StateDB,
    )

    clock = Clock(1000.0)
    db = StateDB(tmp_path / "state.db", clock)
    record = (
        '{"capability":"web.search","version":1,"arguments":"{}","conversation_id":"c1",'
        '"account_id":null,"invocation_id":"inv","expires_at":1100.0,"channel":"console"}'
    )
    turn = json.dumps(
        {
            "conversation_id": "c1",
            "turn_id": "t1",
            "messages": [{"role": "user", "content": "otters?"}],
            "turn": {"conversation_id": "c1", "id": "turn-1", "counts": {"web.search": 1}},
            "text": "",
            "reasoning": "",
            "events": [],
            "citations": [],
            "exchanges": [],
            "rounds": 1,
            "queue": [],
            "waiting_event": 0,
            "waiting": {"token": "tok"},
        }
    )
    digest = token_digest("tok")

    def write_as_the_old_release(c: Any) -> None:
        c.execute(
            "INSERT INTO confirmations(digest, record, expires_at) VALUES (?,?,?)",
            (digest, record, 1100.0),
        )
        c.execute(
            "INSERT INTO paused_turns(digest, conversation_id, state, expires_at) VALUES (?,?,?,?)",
            (digest, "c1", turn, 1100.0),
        )

    try:
        db.run_blocking(write_as_the_old_release)
        pending = SQLitePendingTurnStore(db, 30.0)
        assert pending.shares(SQLiteConfirmationStore(db))
        taken = await pending.take("tok", "c1", with_token=True)
        assert taken is not None and taken.taken is not None
        assert taken.state.turn.counts["web.search"] == 1
        assert taken.state.messages == [{"role": "user", "content": "otters?"}]
        assert taken.taken.record is not None
        assert taken.taken.record.channel == "console"
        # Checkpointed, the turn is written in the versioned form and reads back the same.
        await pending.checkpoint("tok", taken.state)
        (stored,) = db.run_blocking(
            lambda c: c.execute("SELECT state FROM paused_turns").fetchall()
        )
        assert json.loads(stored[0])["schema"] == TURN_STATE.version == 3
        assert 'tok"' not in stored[0]  # kept by digest only
        assert state_from_json(stored[0]).turn.id == "turn-1"
    finally:
        db.close()
