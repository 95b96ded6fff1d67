"""The turn loop with the fake model, the fixture capabilities and a real SQLite history."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from spyglass.conversation.pending import InMemoryPendingTurnStore
from spyglass.conversation.turn import ConversationRunner, TurnRefused
from spyglass.core.confirmation import ConfirmationReply
from spyglass.history.store import NullHistory
from spyglass.llm.toolsupport import ToolSupportMemory
from spyglass.runtime import Runtime
from tests.support.fake_model import (
    FakeModel,
    Reply,
    refuses_tools,
    text,
    tool_call,
    tool_calls,
    without_tool_support,
)
from tests.support.service import Clock
from tests.support.turns import done, run, running
from tests.support.web import LoopbackWeb


def audit_lines(runtime: Runtime) -> list[dict[str, Any]]:
    return [json.loads(line) for line in runtime.paths.audit_file.read_text().splitlines()]


async def test_a_local_tool_runs_without_confirmation_and_is_not_wrapped(
    service: ConversationRunner, fake_model: FakeModel
) -> None:
    fake_model.script(tool_call("system_health", {}), text("All good."))
    body = done(await run(service, "are you ok?"))
    assert body["text"] == "All good." and body["events"][0]["status"] == "ok"
    tool_message = fake_model.requests[1]["messages"][-1]
    assert tool_message["role"] == "tool" and tool_message["tool_call_id"] == "call_1"
    assert json.loads(tool_message["content"])["status"] == "ok"


async def test_endless_tool_calls_stop_at_the_round_cap_with_a_last_request_without_tools(
    service: ConversationRunner, fake_model: FakeModel, service_runtime: Runtime
) -> None:
    fake_model.default = lambda body: (
        tool_call("system_health", {}) if body.get("tools") else text("Final answer.")
    )
    body = done(await run(service, "loop forever"))
    rounds = service_runtime.settings.llm.max_tool_rounds
    assert len(fake_model.requests) == rounds + 1
    assert "tools" not in fake_model.requests[-1]
    assert body["text"] == "Final answer."
    # system.health may run 3 times per turn; all three rounds ran it.
    assert [e["status"] for e in body["events"]] == ["ok"] * rounds


async def test_a_call_the_model_leaked_into_reasoning_is_run_and_audited_as_recovered(
    service: ConversationRunner, fake_model: FakeModel, service_runtime: Runtime
) -> None:
    leaked = '<tool_call>{"name": "system_health", "arguments": {}}</tool_call>'
    fake_model.script(Reply(deltas=[{"reasoning_content": "check " + leaked}]), text("Fine."))
    events = await run(service, "health?")
    assert all("tool_call" not in json.dumps(data) for name, data in events if name == "reasoning")
    assert done(events)["events"][0]["status"] == "ok"
    assert audit_lines(service_runtime)[-1]["recovered"] is True


async def test_ollama_style_calls_of_one_round_each_get_a_card_and_come_back_together(
    service: ConversationRunner,
    fake_model: FakeModel,
    service_runtime: Runtime,
    web: LoopbackWeb,
) -> None:
    service_runtime.policy.set("web_access_enabled", True)
    fake_model.script(
        tool_calls(("web_search", {"query": "a"}, "o1"), ("web_search", {"query": "b"}, "o2")),
        text("Both searched."),
    )
    first = done(await run(service, "search twice"))
    cards = first["pending_confirmations"]
    assert [c["arguments"] for c in cards] == [{"query": "a"}, {"query": "b"}]
    assert first["pending_confirmation"] == cards[0]
    assert len({c["token"] for c in cards}) == 2
    # An existing client answers the first card alone: the turn pauses again at the second.
    token = cards[0]["token"]
    state = await service.resume(first["conversation_id"], token)
    second = done([e async for e in service.run(state, ConfirmationReply(token, True))])
    assert second["pending_confirmation"]["arguments"] == {"query": "b"}
    assert second["pending_confirmation"]["token"] == cards[1]["token"]
    assert [c["token"] for c in second["pending_confirmations"]] == [cards[1]["token"]]
    assert web.hits["/search"] == 1 and len(fake_model.requests) == 1
    token = second["pending_confirmation"]["token"]
    state = await service.resume(second["conversation_id"], token)
    third = done([e async for e in service.run(state, ConfirmationReply(token, True))])
    assert third["text"] == "Both searched."
    assert third["pending_confirmation"] is None and third["pending_confirmations"] == []
    assert [e["status"] for e in third["events"]] == ["ok", "ok"]
    assert web.hits["/search"] == 2
    # Every proposed call got its own tool message, in order, before the final request.
    tool_ids = [
        m["tool_call_id"] for m in fake_model.requests[1]["messages"] if m["role"] == "tool"
    ]
    assert tool_ids == ["o1", "o2"]


async def test_unknown_tools_and_bad_arguments_become_readable_tool_results(
    service: ConversationRunner, fake_model: FakeModel
) -> None:
    fake_model.script(
        Reply(
            deltas=[
                {
                    "tool_calls": [
                        {"index": 0, "id": "u", "function": {"name": "rm_rf", "arguments": "{}"}}
                    ]
                },
                {
                    "tool_calls": [
                        {
                            "index": 1,
                            "id": "b",
                            "function": {"name": "system_health", "arguments": "{oops"},
                        }
                    ]
                },
            ],
            finish_reason="tool_calls",
        ),
        text("Sorry."),
    )
    body = done(await run(service, "do things"))
    assert [(e["status"], e["code"]) for e in body["events"]] == [
        ("rejected", "UNKNOWN_CAPABILITY"),
        ("rejected", "INVALID_ARGUMENTS"),
    ]
    results = [m for m in fake_model.requests[1]["messages"] if m["role"] == "tool"]
    assert "unknown capability" in results[0]["content"]
    assert "JSON object" in results[1]["content"]


async def test_with_web_access_off_a_leaked_web_call_is_rejected_by_policy(
    service: ConversationRunner, fake_model: FakeModel, web: LoopbackWeb
) -> None:
    fake_model.script(
        text('<tool_call>{"name": "web_search", "arguments": {"query": "x"}}</tool_call>'),
        text("Web access is off."),
    )
    body = done(await run(service, "search"))
    assert body["events"][0]["code"] == "POLICY_DISABLED"
    assert body["pending_confirmation"] is None
    assert web.hits["/search"] == 0


async def test_a_later_turn_replays_earlier_results_with_a_fresh_boundary(
    service: ConversationRunner, fake_model: FakeModel, service_runtime: Runtime
) -> None:
    service_runtime.policy.set("web_access_enabled", True)
    fake_model.script(tool_call("web_fetch", {"url": "https://example.org/hello"}), text("Read."))
    first = done(await run(service, "read hello"))
    token = first["pending_confirmation"]["token"]
    state = await service.resume(first["conversation_id"], token)
    [e async for e in service.run(state, ConfirmationReply(token, True))]
    live = fake_model.requests[1]["messages"][-1]["content"]
    fake_model.script(text("Again."))
    await run(service, "and now?", first["conversation_id"])
    replayed = next(m for m in fake_model.requests[2]["messages"] if m["role"] == "tool")["content"]
    assert "Hello from the loopback web." in replayed
    assert replayed.splitlines()[0] != live.splitlines()[0]
    assert [m["role"] for m in fake_model.requests[2]["messages"]] == [
        "system",
        "user",
        "assistant",
        "tool",
        "assistant",
        "user",
    ]


async def test_a_cancelled_turn_keeps_what_was_produced(
    service: ConversationRunner, fake_model: FakeModel
) -> None:
    fake_model.script(Reply(deltas=[{"content": "Partial "}] + [{"content": "x"}] * 50, delay=0.05))
    state = await service.start(None, "long answer please")
    seen = asyncio.Event()

    async def consume() -> None:
        async for name, _ in service.run(state):
            if name == "content":
                seen.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(seen.wait(), timeout=5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    stored = await service.history.messages(state.conversation_id)
    assert [m["role"] for m in stored] == ["user", "assistant"]
    assert stored[1]["text"].startswith("Partial ")


async def test_an_unknown_conversation_is_refused_when_history_is_on(
    service: ConversationRunner,
) -> None:
    with pytest.raises(TurnRefused) as refused:
        await service.start("nope", "hi")
    assert refused.value.status == 404


async def test_with_history_off_any_conversation_id_is_accepted_and_nothing_is_stored(
    service_runtime: Runtime, fake_model: FakeModel
) -> None:
    fake_model.script(text("hi"))
    async with running(service_runtime, NullHistory(), InMemoryPendingTurnStore()) as service:
        body = done(await run(service, "hello", "any-id"))
    assert body["conversation_id"] == "any-id"
    assert not service_runtime.paths.database_file.exists()


async def test_the_reasoning_behind_a_call_is_sent_back_with_it(
    service: ConversationRunner, fake_model: FakeModel
) -> None:
    call = tool_call("system_health", {})
    call.deltas.insert(1, {"reasoning_content": "I should check."})
    fake_model.script(call, text("Fine."))
    await run(service, "check")
    assistant = fake_model.requests[1]["messages"][-2]
    assert assistant["role"] == "assistant"
    assert assistant["reasoning_content"] == "I should check."
    assert assistant["tool_calls"][0]["function"]["name"] == "system_health"


async def test_a_capability_switched_off_under_web_access_is_not_offered_to_the_model(
    service: ConversationRunner, fake_model: FakeModel, service_runtime: Runtime
) -> None:
    service_runtime.policy.set("web_access_enabled", True)
    service_runtime.policy.set("web_fetch_enabled", False)
    fake_model.script(text("Only searching."))
    await run(service, "read a page")
    offered = {t["function"]["name"] for t in fake_model.requests[0]["tools"]}
    assert "web_search" in offered and "web_fetch" not in offered
    assert "web_fetch" not in fake_model.requests[0]["messages"][0]["content"]


@pytest.mark.parametrize("dialect", ["ollama", "ollama-0.3", "llama-server", "vllm", "vllm-0.6"])
async def test_a_model_without_tool_support_still_answers_and_the_person_is_told_once(
    service: ConversationRunner, fake_model: FakeModel, service_runtime: Runtime, dialect: str
) -> None:
    service_runtime.policy.set("web_access_enabled", True)
    fake_model.default = without_tool_support(lambda body: text("Otters hold hands."), dialect)
    events = await run(service, "tell me about otters")
    body = done(events)
    assert body["text"] == "Otters hold hands."
    notices = [data for name, data in events if name == "notice"]
    assert [n["code"] for n in notices] == ["MODEL_WITHOUT_TOOLS"]
    assert "cannot search the web" in notices[0]["message"]
    assert body["notices"] == notices
    assert not any(name == "error" for name, _ in events)
    retried = fake_model.requests[1]
    assert "tools" not in retried and "You have no tools" in retried["messages"][0]["content"]
    # The next turn does not ask with tools again, and says nothing more about it.
    again = await run(service, "and sea otters?", body["conversation_id"])
    assert len(fake_model.requests) == 3 and "tools" not in fake_model.requests[2]
    assert not any(name == "notice" for name, _ in again) and "notices" not in done(again)


async def test_a_refusal_of_tools_is_forgotten_after_a_while_and_tools_are_offered_again(
    service: ConversationRunner, fake_model: FakeModel, service_runtime: Runtime, clock: Clock
) -> None:
    service.model.tool_support = ToolSupportMemory(600, clock)
    fake_model.script(refuses_tools("ollama"), text("No tools."))
    await run(service, "hello")
    clock.now += 601
    fake_model.script(text("Now with tools."))
    await run(service, "hello again")
    assert "tools" in fake_model.requests[-1]


async def test_a_reply_that_was_only_a_malformed_call_is_asked_for_again_without_tools(
    service: ConversationRunner, fake_model: FakeModel, service_runtime: Runtime
) -> None:
    service_runtime.policy.set("web_access_enabled", True)
    broken = '<tool_call>{"name": "web_search", "arguments": {"query": </tool_call>'
    fake_model.script(
        Reply(deltas=[{"reasoning_content": "Let me search. " + broken}]),
        text("Otters are mustelids."),
    )
    events = await run(service, "otters?")
    body = done(events)
    assert body["text"] == "Otters are mustelids."
    assert len(fake_model.requests) == 2 and "tools" not in fake_model.requests[1]
    # The empty reply was not kept in the transcript the model sees.
    assert fake_model.requests[1]["messages"][-1]["role"] == "user"
    assert "tool_call" not in json.dumps(events)


async def test_when_the_second_answer_is_empty_too_the_person_is_told_why(
    service: ConversationRunner, fake_model: FakeModel
) -> None:
    broken = Reply(deltas=[{"content": "<tool_call>{broken</tool_call>"}])
    fake_model.script(broken, Reply(deltas=[{"content": "<function=web_search>"}]))
    events = await run(service, "otters?")
    assert len(fake_model.requests) == 2
    assert [d["code"] for n, d in events if n == "notice"] == ["EMPTY_ANSWER"]
    assert done(events)["notices"][0]["code"] == "EMPTY_ANSWER"


async def test_an_answer_with_text_beside_a_malformed_call_is_not_asked_for_again(
    service: ConversationRunner, fake_model: FakeModel
) -> None:
    fake_model.script(Reply(deltas=[{"content": "Otters float. <tool_call>{broken</tool_call>"}]))
    body = done(await run(service, "otters?"))
    assert body["text"].strip() == "Otters float."
    assert len(fake_model.requests) == 1


async def test_a_new_conversation_whose_claim_fails_keeps_no_message_of_it(
    service_runtime: Runtime, database_url: str
) -> None:
    import psycopg

    from spyglass.accounts.store import AccountStore
    from spyglass.errors import StoreUnavailable
    from spyglass.state.postgres import PostgresHistory, upgrade
    from spyglass.state.postgres.accounts import PostgresRunner

    upgrade(database_url, 5)
    # Both in PostgreSQL, as the shared backend keeps them; the claim gives up after 0.5 s.
    people = PostgresRunner(database_url, timeout=5, statement_seconds=0.5)
    accounts = AccountStore(people, lambda: 1000.0)
    history = PostgresHistory(database_url, retention_days=30, timeout=5)
    try:
        async with running(service_runtime, history) as service:
            with psycopg.connect(database_url, autocommit=True) as blocker:
                # A restart at this precise moment: the claim cannot be written.
                blocker.execute(b"BEGIN")
                blocker.execute(b"LOCK TABLE account_conversations IN EXCLUSIVE MODE")
                with pytest.raises(StoreUnavailable):
                    await service.start(
                        None, "a member's words", claim=lambda c: accounts.claim(c, "member")
                    )
                blocker.execute(b"COMMIT")
            # "Nothing was changed": no message without its person, for the owner to find.
            assert await history.conversations() == []
            assert await accounts.conversations() == {}
    finally:
        people.close()
