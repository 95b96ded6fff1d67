"""The message endpoint through the real app: turns, confirmations, SSE, failures."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx

from spyglass.runtime import Runtime
from tests.support.fake_model import FakeModel, Reply, text, tool_call, tool_calls
from tests.support.service import Clock
from tests.support.web import CANARY, LoopbackWeb

URL = "/api/v1/conversation/message"


def parse_sse(body: str) -> list[tuple[str, dict[str, Any]]]:
    events = []
    for block in body.strip().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in block.splitlines())
        events.append((lines["event"], json.loads(lines["data"])))
    return events


async def ask_search(client: httpx.AsyncClient, fake_model: FakeModel) -> dict[str, Any]:
    fake_model.script(tool_call("web_search", {"query": "otters"}), text("Otters are mustelids."))
    response = await client.post(URL, json={"text": "Tell me about otters"})
    assert response.status_code == 200, response.text
    return response.json()


def answer(
    turn: dict[str, Any], *, approve: bool = True, conversation_id: str | None = None
) -> dict[str, Any]:
    """The request that answers ``turn``'s pending confirmation, sent in ``turn``'s own
    conversation unless ``conversation_id`` names another."""
    return {
        "conversation_id": conversation_id or turn["conversation_id"],
        "confirmation": {"token": turn["pending_confirmation"]["token"], "approve": approve},
    }


async def test_a_plain_question_gets_the_models_answer(
    client: httpx.AsyncClient, fake_model: FakeModel
) -> None:
    fake_model.script(text("Hello there.", reasoning="greet"))
    response = await client.post(URL, json={"text": "hi"})
    assert response.status_code == 200
    body = response.json()
    assert body["text"] == "Hello there."
    assert body["reasoning"] == "greet"
    assert body["events"] == [] and body["citations"] == []
    assert body["pending_confirmation"] is None
    assert fake_model.requests[0]["messages"][-1] == {"role": "user", "content": "hi"}


async def test_web_tools_are_not_offered_while_web_access_is_off(
    client: httpx.AsyncClient, fake_model: FakeModel
) -> None:
    fake_model.script(text("ok"))
    await client.post(URL, json={"text": "search something"})
    offered = [t["function"]["name"] for t in fake_model.requests[0].get("tools", [])]
    assert "web_search" not in offered and "web_fetch" not in offered
    assert offered == ["system_health"]


async def test_a_search_waits_for_approval_with_the_exact_query(
    client: httpx.AsyncClient, fake_model: FakeModel, web: LoopbackWeb, web_on: Runtime
) -> None:
    body = await ask_search(client, fake_model)
    pending = body["pending_confirmation"]
    assert pending["capability"] == "web.search"
    assert pending["arguments"] == {"query": "otters"}
    assert pending["expires_in_seconds"] == 120
    assert body["events"][0]["status"] == "pending_confirmation"
    assert web.hits["/search"] == 0, "nothing may leave before approval"


async def test_approving_runs_the_search_once_and_finishes_with_citations(
    client: httpx.AsyncClient, fake_model: FakeModel, web: LoopbackWeb, web_on: Runtime
) -> None:
    first = await ask_search(client, fake_model)
    token = first["pending_confirmation"]["token"]
    response = await client.post(URL, json=answer(first))
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["text"] == "Otters are mustelids."
    assert body["pending_confirmation"] is None
    [event] = body["events"]
    assert event["status"] == "ok" and event["provider"] == "loopback"
    assert event["summary"]["result_count"] == 3  # the ftp: hit is shown, never cited
    # An answer without markers cites nothing by number: every source is listed, none marked.
    assert body["citations"] == [
        {"url": "https://example.org/1", "title": "About otters", "n": 1, "cited": False},
        {"url": "https://example.org/2", "title": "About otters", "n": 2, "cited": False},
    ]
    assert web.hits["/search"] == 1
    # The model got the result wrapped as untrusted, and never saw the token.
    tool_message = fake_model.requests[1]["messages"][-1]
    assert tool_message["role"] == "tool"
    assert tool_message["content"].startswith("<untrusted_tool_output id=")
    assert token not in json.dumps(fake_model.requests)

    again = await client.post(URL, json=answer(first))
    assert again.status_code == 400
    assert again.json()["error"]["code"] == "INVALID_CONFIRMATION"
    assert web.hits["/search"] == 1


async def test_an_answer_citing_2_marks_exactly_that_source_in_the_answer_and_history(
    client: httpx.AsyncClient, fake_model: FakeModel, web: LoopbackWeb, web_on: Runtime
) -> None:
    fake_model.script(tool_call("web_search", {"query": "otters"}), text("Otters hold hands [2]."))
    first = (await client.post(URL, json={"text": "Tell me about otters"})).json()
    body = (await client.post(URL, json=answer(first))).json()
    assert [(c["n"], c["cited"]) for c in body["citations"]] == [(1, False), (2, True)]
    # The model was given each result with the number to cite it by, and asked to.
    given = fake_model.requests[1]["messages"]
    assert '"cite": "[2]"' in given[-1]["content"]
    assert "[2]" in given[0]["content"] and "square brackets" in given[0]["content"]
    stored = (await client.get(f"/api/v1/conversations/{first['conversation_id']}")).json()
    assistant = stored["messages"][-1]
    assert [(c["n"], c["cited"]) for c in assistant["citations"]] == [(1, False), (2, True)]


async def test_two_concurrent_approvals_execute_once(
    client: httpx.AsyncClient, fake_model: FakeModel, web: LoopbackWeb, web_on: Runtime
) -> None:
    first = await ask_search(client, fake_model)
    approval = answer(first)
    responses = await asyncio.gather(
        client.post(URL, json=approval), client.post(URL, json=approval)
    )
    assert sorted(r.status_code for r in responses) == [200, 400]
    assert web.hits["/search"] == 1


async def test_denying_tells_the_model_and_runs_nothing(
    client: httpx.AsyncClient, fake_model: FakeModel, web: LoopbackWeb, web_on: Runtime
) -> None:
    first = await ask_search(client, fake_model)
    fake_model.script(text("I could not search."))
    response = await client.post(
        URL,
        json=answer(first, approve=False),
    )
    body = response.json()
    assert body["events"][0]["status"] == "denied"
    assert body["events"][0]["code"] == "DENIED"
    assert web.hits["/search"] == 0
    told = fake_model.requests[1]["messages"][-1]["content"]
    assert "declined" in told


def audit_events(runtime: Runtime) -> list[dict[str, Any]]:
    text = runtime.paths.audit_file.read_text()
    return [json.loads(line) for line in text.splitlines()]


async def test_a_late_approval_is_recorded_as_expired_and_the_turn_goes_on(
    client: httpx.AsyncClient,
    fake_model: FakeModel,
    web: LoopbackWeb,
    web_on: Runtime,
    clock: Clock,
) -> None:
    first = await ask_search(client, fake_model)
    clock.now += 121
    response = await client.post(URL, json=answer(first))
    assert response.status_code == 200
    body = response.json()
    [event] = body["events"]
    assert (event["status"], event["code"]) == ("denied", "INVALID_CONFIRMATION")
    assert "expired" in event["message"]
    assert body["text"] == "Otters are mustelids."  # the model's answer without the search
    assert "expired" in fake_model.requests[1]["messages"][-1]["content"]
    assert web.hits["/search"] == 0
    codes = [(e["outcome"], e["code"]) for e in audit_events(web_on)]
    # The card's expiry once, then the late answer itself.
    assert codes[1:] == [("denied", "CONFIRMATION_EXPIRED"), ("denied", "INVALID_CONFIRMATION")]
    # The conversation is alive: the next message is answered in it.
    fake_model.script(text("Still here."))
    follow = await client.post(
        URL, json={"conversation_id": first["conversation_id"], "text": "and now?"}
    )
    assert follow.status_code == 200 and follow.json()["text"] == "Still here."


async def test_an_answer_long_after_expiry_is_refused_and_both_are_audited(
    client: httpx.AsyncClient,
    fake_model: FakeModel,
    web: LoopbackWeb,
    web_on: Runtime,
    clock: Clock,
) -> None:
    first = await ask_search(client, fake_model)
    clock.now += 121 + 121
    response = await client.post(URL, json=answer(first))
    assert response.status_code == 400
    assert "send the request again" in response.json()["error"]["message"]
    events = audit_events(web_on)
    assert [(e["stage"], e["outcome"], e["code"]) for e in events[1:]] == [
        ("confirm", "denied", "CONFIRMATION_EXPIRED"),
        ("confirm", "rejected", "INVALID_CONFIRMATION"),
    ]
    assert events[1]["capability"] == "web.search" and events[1]["channel"] == "console"
    assert events[1]["invocation_id"] == events[0]["invocation_id"]
    assert first["pending_confirmation"]["token"] not in web_on.paths.audit_file.read_text()
    assert web.hits["/search"] == 0


async def test_forged_replayed_and_foreign_answers_are_each_one_audit_event(
    client: httpx.AsyncClient, fake_model: FakeModel, web: LoopbackWeb, web_on: Runtime
) -> None:
    first = await ask_search(client, fake_model)
    token = first["pending_confirmation"]["token"]
    fake_model.script(text("other"))
    other = (await client.post(URL, json={"text": "another chat"})).json()
    before = len(audit_events(web_on))
    forged = {
        "conversation_id": first["conversation_id"],
        "confirmation": {"token": "x" * 32, "approve": True},
    }
    assert (await client.post(URL, json=forged)).status_code == 400
    foreign = answer(first, conversation_id=other["conversation_id"])
    assert (await client.post(URL, json=foreign)).status_code == 400
    fake_model.script(text("Searched."))
    assert (await client.post(URL, json=answer(first))).status_code == 200
    assert (await client.post(URL, json=answer(first))).status_code == 400  # replayed
    events = audit_events(web_on)[before:]
    refused = [e for e in events if e["code"] == "INVALID_CONFIRMATION"]
    assert len(refused) == 3
    assert all(e["outcome"] == "rejected" and e["capability"] is None for e in refused)
    audit = web_on.paths.audit_file.read_text()
    assert token not in audit and "x" * 32 not in audit and "otters" not in audit


async def test_a_card_nobody_answers_is_audited_once_as_expired_by_the_sweep(
    client: httpx.AsyncClient, fake_model: FakeModel, web_on: Runtime, clock: Clock
) -> None:
    await ask_search(client, fake_model)
    assert await web_on.executor.sweep_expired() == 0  # not yet expired
    clock.now += 121
    assert await web_on.executor.sweep_expired() == 1
    assert await web_on.executor.sweep_expired() == 0
    # A later request of any kind notices nothing more.
    fake_model.script(text("hi"))
    await client.post(URL, json={"text": "hello"})
    expired = [e for e in audit_events(web_on) if e["code"] == "CONFIRMATION_EXPIRED"]
    assert len(expired) == 1 and expired[0]["capability"] == "web.search"


async def test_an_expiry_is_noticed_by_the_next_request_without_any_sweep(
    client: httpx.AsyncClient, fake_model: FakeModel, web_on: Runtime, clock: Clock
) -> None:
    await ask_search(client, fake_model)
    clock.now += 121
    fake_model.script(text("hi"))
    await client.post(URL, json={"text": "something else"})
    expired = [e for e in audit_events(web_on) if e["code"] == "CONFIRMATION_EXPIRED"]
    assert len(expired) == 1


async def test_a_token_from_another_conversation_is_refused_and_stays_usable(
    client: httpx.AsyncClient, fake_model: FakeModel, web: LoopbackWeb, web_on: Runtime
) -> None:
    first = await ask_search(client, fake_model)
    fake_model.script(text("other"))
    other = (await client.post(URL, json={"text": "another chat"})).json()
    foreign = await client.post(URL, json=answer(first, conversation_id=other["conversation_id"]))
    assert foreign.status_code == 400
    own = await client.post(URL, json=answer(first))
    assert own.status_code == 200
    assert web.hits["/search"] == 1


async def test_turning_web_access_off_between_requests_changes_the_outcome(
    client: httpx.AsyncClient, fake_model: FakeModel, web: LoopbackWeb, web_on: Runtime
) -> None:
    first = await ask_search(client, fake_model)
    web_on.paths.policy_file.write_text('{"web_access_enabled": false}')
    response = await client.post(
        URL,
        json=answer(first),
    )
    [event] = response.json()["events"]
    assert event["status"] == "rejected" and event["code"] == "POLICY_DISABLED"
    assert web.hits["/search"] == 0


async def test_a_page_cannot_close_the_untrusted_wrapper(
    client: httpx.AsyncClient, fake_model: FakeModel, web_on: Runtime
) -> None:
    fake_model.script(tool_call("web_fetch", {"url": "https://example.org/evil"}), text("Done."))
    first = (await client.post(URL, json={"text": "read it"})).json()
    await client.post(
        URL,
        json=answer(first),
    )
    content = fake_model.requests[1]["messages"][-1]["content"]
    opening, _, _rest = content.partition("\n")
    boundary = opening.removeprefix('<untrusted_tool_output id="').removesuffix('">')
    assert len(boundary) == 32 and int(boundary, 16) >= 0
    closing = f'</untrusted_tool_output id="{boundary}">'
    # The only closing tag with the real boundary is the last line; the page's fake closing
    # tags are inside it, with their name replaced.
    assert content.endswith(closing) and content.count(closing) == 1
    assert content.lower().count("untrusted_tool_output") == 2
    assert content.index("[envelope tag removed]") < content.index(closing)


async def test_the_audit_log_holds_no_query_url_or_page_text(
    client: httpx.AsyncClient, fake_model: FakeModel, web_on: Runtime
) -> None:
    first = await ask_search(client, fake_model)
    await client.post(
        URL,
        json=answer(first),
    )
    audit = web_on.paths.audit_file.read_text()
    assert audit.count("\n") == 2  # the pending attempt and the approved execution
    for secret in ("otters", CANARY, "example.org", "mustelids"):
        assert secret not in audit


async def test_an_unreachable_model_is_a_502_naming_the_url_and_keeps_the_message(
    client: httpx.AsyncClient, fake_model: FakeModel, service_runtime: Runtime
) -> None:
    fake_model.script(Reply(status=503))
    response = await client.post(URL, json={"text": "are you there"})
    assert response.status_code == 502
    error = response.json()["error"]
    assert error["code"] == "MODEL_UNAVAILABLE"
    assert fake_model.base_url in error["message"]
    conversation = await client.get(f"/api/v1/conversations/{response.json()['conversation_id']}")
    assert conversation.json()["messages"][0]["text"] == "are you there"


async def test_a_stream_that_breaks_midway_ends_the_turn_with_an_error_event(
    client: httpx.AsyncClient, fake_model: FakeModel
) -> None:
    fake_model.script(Reply(deltas=[{"content": "Half an "}, {"content": "answer"}], break_after=1))
    response = await client.post(URL, json={"text": "go"}, headers={"Accept": "text/event-stream"})
    events = parse_sse(response.text)
    names = [name for name, _ in events]
    assert names[0] == "turn" and names[-1] == "done"
    assert ("content", {"delta": "Half an "}) in events
    assert dict(events)["error"]["error"]["code"] == "MODEL_UNAVAILABLE"
    assert events[-1][1]["text"] == "Half an "


async def test_sse_streams_the_whole_turn_in_contract_order(
    client: httpx.AsyncClient, fake_model: FakeModel, web_on: Runtime
) -> None:
    fake_model.script(tool_call("web_search", {"query": "otters"}, content="Let me look. "))
    response = await client.post(
        URL, json={"text": "otters?"}, headers={"Accept": "text/event-stream"}
    )
    assert response.headers["content-type"].startswith("text/event-stream")
    events = parse_sse(response.text)
    names = [name for name, _ in events]
    assert names == [
        "turn",
        "content",
        "tool_start",
        "tool_end",
        "pending_confirmation",
        "pending_confirmations",
        "citations",
        "done",
    ]
    done = events[-1][1]
    assert done["pending_confirmation"] == events[4][1]
    assert done["pending_confirmations"] == events[5][1]["pending_confirmations"] == [events[4][1]]
    assert events[2][1] == {"capability": "web.search", "arguments": {"query": "otters"}}

    fake_model.script(text("Found them."))
    resumed = await client.post(
        URL,
        json=answer(done),
        headers={"Accept": "text/event-stream"},
    )
    events = parse_sse(resumed.text)
    names = [name for i, (name, _) in enumerate(events) if i == 0 or events[i - 1][0] != name]
    assert names == ["turn", "tool_end", "content", "citations", "done"]
    assert events[-1][1]["text"] == "Let me look. Found them."


async def test_a_lone_surrogate_in_a_message_is_a_422_not_a_500(
    client: httpx.AsyncClient,
) -> None:
    response = await client.post(
        URL, content=rb'{"text": "hi \ud800"}', headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 422
    assert "text is not valid text" in response.json()["error"]["message"]


BAD_CALL = Reply(
    deltas=[
        {"role": "assistant"},
        {
            "tool_calls": [
                {
                    "index": 0,
                    "id": "call_1",
                    "type": "function",
                    # The arguments text itself escapes a lone surrogate.
                    "function": {"name": "web_search", "arguments": '{"query": "\\ud800"}'},
                }
            ]
        },
    ],
    finish_reason="tool_calls",
)


async def test_a_models_call_with_a_lone_surrogate_is_a_readable_tool_failure(
    client: httpx.AsyncClient, fake_model: FakeModel, web_on: Runtime
) -> None:
    fake_model.script(BAD_CALL, text("Sorry, that query was broken."))
    response = await client.post(URL, json={"text": "search"})
    assert response.status_code == 200, response.text
    body = response.json()
    [event] = body["events"]
    assert event["status"] == "rejected"
    assert body["text"] == "Sorry, that query was broken."
    told = fake_model.requests[1]["messages"][-1]["content"]
    assert "INVALID_ARGUMENTS" in told and "query is not valid text" in told


async def test_an_sse_turn_with_a_broken_call_still_ends_with_done(
    client: httpx.AsyncClient, fake_model: FakeModel, web_on: Runtime
) -> None:
    fake_model.script(BAD_CALL, text("Done anyway."))
    response = await client.post(
        URL, json={"text": "search"}, headers={"Accept": "text/event-stream"}
    )
    events = parse_sse(response.text)
    names = [name for name, _ in events]
    assert names[0] == "turn" and names[-1] == "done"
    assert events[-1][1]["text"] == "Done anyway."


async def test_the_answer_and_the_sse_done_event_carry_the_receipt(
    client: httpx.AsyncClient, fake_model: FakeModel, web: LoopbackWeb, web_on: Runtime
) -> None:
    first = await ask_search(client, fake_model)
    assert first["receipt"]["left_device"] is False
    assert first["receipt"]["summary"] == (
        "Stayed on this device; not sent: search 'otters' (waiting for your approval)"
    )
    response = await client.post(URL, json=answer(first), headers={"Accept": "text/event-stream"})
    name, done = parse_sse(response.text)[-1]
    assert name == "done"
    assert done["receipt"]["left_device"] is True
    assert done["receipt"]["summary"].startswith("Left this device: searched 'otters' (")
    stored = await client.get(f"/api/v1/conversations/{first['conversation_id']}")
    assert stored.json()["messages"][-1]["receipt"] == done["receipt"]


def two_searches() -> Reply:
    return tool_calls(
        ("web_search", {"query": "otters"}, "c1"),
        ("web_search", {"query": "beavers"}, "c2"),
        style="openai",
    )


def batch(turn: dict[str, Any], *approvals: bool) -> dict[str, Any]:
    cards = turn["pending_confirmations"]
    return {
        "conversation_id": turn["conversation_id"],
        "confirmations": [
            {"token": c["token"], "approve": a} for c, a in zip(cards, approvals, strict=True)
        ],
    }


async def test_a_round_s_cards_come_back_at_once_and_one_batch_answers_them(
    client: httpx.AsyncClient, fake_model: FakeModel, web: LoopbackWeb, web_on: Runtime
) -> None:
    fake_model.script(two_searches(), text("Otters found; beavers declined."))
    turn = (await client.post(URL, json={"text": "otters and beavers?"})).json()
    cards = turn["pending_confirmations"]
    assert [c["arguments"]["query"] for c in cards] == ["otters", "beavers"]
    assert turn["pending_confirmation"] == cards[0]
    assert all(c["expires_in_seconds"] == 120 for c in cards)
    answered = await client.post(URL, json=batch(turn, True, False))
    assert answered.status_code == 200, answered.text
    body = answered.json()
    assert body["text"] == "Otters found; beavers declined."
    assert [e["status"] for e in body["events"]] == ["ok", "denied"]
    assert body["pending_confirmations"] == [] and body["pending_confirmation"] is None
    assert web.hits["/search"] == 1
    # Every token was single use.
    again = await client.post(URL, json=batch(turn, True, True))
    assert again.status_code == 400


async def test_an_existing_client_answering_one_card_at_a_time_is_shown_the_next(
    client: httpx.AsyncClient, fake_model: FakeModel, web: LoopbackWeb, web_on: Runtime
) -> None:
    fake_model.script(two_searches(), text("Both found."))
    turn = (await client.post(URL, json={"text": "otters and beavers?"})).json()
    second = (await client.post(URL, json=answer(turn))).json()
    assert second["pending_confirmation"]["arguments"] == {"query": "beavers"}
    assert second["pending_confirmation"]["token"] == turn["pending_confirmations"][1]["token"]
    assert [e["status"] for e in second["events"]] == ["ok", "pending_confirmation"]
    last = (await client.post(URL, json=answer(second))).json()
    assert last["text"] == "Both found."
    assert web.hits["/search"] == 2


async def test_a_batch_streams_its_outcomes_and_a_partial_one_streams_the_cards_still_waiting(
    client: httpx.AsyncClient, fake_model: FakeModel, web: LoopbackWeb, web_on: Runtime
) -> None:
    fake_model.script(
        tool_calls(
            ("web_search", {"query": "a"}, "c1"),
            ("web_search", {"query": "b"}, "c2"),
            ("web_search", {"query": "c"}, "c3"),
            style="openai",
        ),
        text("Done."),
    )
    stream = {"Accept": "text/event-stream"}
    first = parse_sse((await client.post(URL, json={"text": "abc"}, headers=stream)).text)
    listed = dict(first)["pending_confirmations"]["pending_confirmations"]
    assert [c["arguments"]["query"] for c in listed] == ["a", "b", "c"]
    turn = first[-1][1]
    partial = {
        "conversation_id": turn["conversation_id"],
        "confirmations": [
            {"token": listed[0]["token"], "approve": True},
            {"token": listed[1]["token"], "approve": False},
        ],
    }
    events = parse_sse((await client.post(URL, json=partial, headers=stream)).text)
    names = [name for name, _ in events]
    assert names == [
        "turn",
        "tool_end",
        "tool_end",
        "pending_confirmation",
        "pending_confirmations",
        "citations",
        "done",
    ]
    assert [c["token"] for c in dict(events)["pending_confirmations"]["pending_confirmations"]] == [
        listed[2]["token"]
    ]
    last = await client.post(URL, json=answer(events[-1][1]))
    assert [e["status"] for e in last.json()["events"]] == ["ok", "denied", "ok"]
    assert web.hits["/search"] == 2


async def test_answers_that_cannot_be_a_batch_say_what_to_send(
    client: httpx.AsyncClient, fake_model: FakeModel, web: LoopbackWeb, web_on: Runtime
) -> None:
    fake_model.script(two_searches(), text("Both found."))
    turn = (await client.post(URL, json={"text": "otters and beavers?"})).json()
    one = {"token": turn["pending_confirmation"]["token"], "approve": True}
    conversation = turn["conversation_id"]
    cases = {
        "not both": {"conversation_id": conversation, "confirmation": one, "confirmations": [one]},
        "each token may appear once": {
            "conversation_id": conversation,
            "confirmations": [one, one],
        },
        "at most 8": {"conversation_id": conversation, "confirmations": [one] * 9},
        "at least 1": {"conversation_id": conversation, "confirmations": []},
        "conversation_id is required": {"confirmations": [one]},
    }
    for words, body in cases.items():
        response = await client.post(URL, json=body)
        assert response.status_code == 422, (words, response.text)
        message = response.json()["error"]["message"]
        assert words in message.replace("no more than 8", "at most 8").replace(
            "at least 1 item", "at least 1"
        ), message
    stranger = await client.post(
        URL,
        json={
            "conversation_id": conversation,
            "confirmations": [one, {"token": "not-a-card-of-this-turn", "approve": True}],
        },
    )
    assert stranger.status_code == 400
    assert "not waiting in this turn" in stranger.json()["error"]["message"]
    # Nothing was used up: the whole round is still answerable.
    whole = await client.post(URL, json=batch(turn, True, True))
    assert whole.status_code == 200, whole.text
    assert web.hits["/search"] == 2


async def test_an_answer_sent_to_another_conversation_does_not_use_up_the_token(
    client: httpx.AsyncClient, fake_model: FakeModel, web: LoopbackWeb, web_on: Runtime
) -> None:
    fake_model.script(text("Hi."))
    other = (await client.post(URL, json={"text": "hello"})).json()["conversation_id"]
    turn = await ask_search(client, fake_model)
    wrong = await client.post(URL, json=answer(turn, conversation_id=other))
    assert wrong.status_code == 400
    right = await client.post(URL, json=answer(turn))
    assert right.status_code == 200 and right.json()["text"] == "Otters are mustelids."


async def test_stop_answers_whether_a_turn_ran_and_refuses_a_conversation_not_the_caller_s(
    client: httpx.AsyncClient, fake_model: FakeModel
) -> None:
    fake_model.script(text("Hi."))
    conversation = (await client.post(URL, json={"text": "hello"})).json()["conversation_id"]
    stopped = await client.post("/api/v1/conversation/stop", json={"conversation_id": conversation})
    assert stopped.status_code == 200
    assert stopped.json() == {"conversation_id": conversation, "stopped": False}
    unknown = await client.post("/api/v1/conversation/stop", json={"conversation_id": "nope"})
    assert unknown.status_code == 404


async def test_stop_ends_the_caller_s_turn_running_in_this_process_with_done(
    app: Any, client: httpx.AsyncClient, fake_model: FakeModel
) -> None:
    fake_model.script(text("Hi."))
    conversation = (await client.post(URL, json={"text": "hello"})).json()["conversation_id"]
    # (The in-process test transport answers only once a response is whole, so the turn
    # runs beside it, as the service runs it for a streaming client.)
    runner = app.state.spyglass.conversations
    fake_model.script(Reply(deltas=[{"content": "word "}] * 200, delay=0.02))
    state = await runner.start(conversation, "talk")
    events: list[tuple[str, dict[str, Any]]] = []

    async def read() -> None:
        async for event in runner.run(state):
            events.append(event)

    reader = asyncio.create_task(read())
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 5
    while not any(name == "content" for name, _ in events):
        assert loop.time() < deadline, "the turn never streamed"
        await asyncio.sleep(0.005)
    stopped = await client.post("/api/v1/conversation/stop", json={"conversation_id": conversation})
    assert stopped.json() == {"conversation_id": conversation, "stopped": True}
    await asyncio.wait_for(reader, timeout=5)
    assert events[-1][0] == "done"
    assert events[-1][1]["notices"][-1]["code"] == "STOPPED"
    assert 0 < events[-1][1]["text"].count("word") < 200
