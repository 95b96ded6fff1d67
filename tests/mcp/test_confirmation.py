"""Approval through MCP elicitation, on handshake-era and 2026-07-28 clients alike."""

from __future__ import annotations

from collections.abc import Callable

import anyio
import mcp.types as types
import pytest
from mcp import Client

from spyglass.core.context import InvocationContext
from spyglass.core.outcome import Notice
from spyglass.core.policy import WEB_ACCESS
from spyglass.core.registry import Registry
from spyglass.mcp.confirmation import (
    APPROVAL_KEY,
    approval_message,
    approves,
    client_can_elicit,
    decode_state,
    encode_state,
)
from spyglass.mcp.server import build_server
from spyglass.paths import Paths
from spyglass.runtime import Runtime, build_runtime
from tests.mcp.support import ERAS, Counted, Owner, audit_events, text_of
from tests.support.capabilities import make


@pytest.fixture
def handler() -> Counted:
    return Counted()


def _runtime(paths: Paths, handler: Counted, **overrides: str) -> Runtime:
    runtime = build_runtime(
        paths,
        registry=Registry([make("web.echo", handler=handler)]),
        overrides=dict(overrides),
    )
    runtime.policy.set(WEB_ACCESS, True)
    return runtime


def _client_2026(paths: Paths, handler: Counted) -> Client:
    """A 2026-07-28 client whose callback only declares elicitation support, so the test
    answers the approval by hand."""
    return Client(
        build_server(_runtime(paths, handler)), mode="2026-07-28", elicitation_callback=Owner()
    )


async def _ask_for_approval(client: Client) -> types.InputRequiredResult:
    """Call ``web_echo`` once; the server must answer with an approval request."""
    first = await client.session.call_tool(
        "web_echo", {"text": "tide tables"}, allow_input_required=True
    )
    assert isinstance(first, types.InputRequiredResult)
    return first


@pytest.mark.parametrize("era", ERAS)
async def test_accepted_elicitation_runs_the_call_exactly_once(
    paths: Paths, handler: Counted, era: str
) -> None:
    owner = Owner()
    server = build_server(_runtime(paths, handler))
    async with Client(server, mode=era, elicitation_callback=owner) as client:
        result = await client.call_tool("web_echo", {"text": "tide tables"})
    assert not result.is_error
    assert '"echo": "tide tables"' in text_of(result)
    assert handler.runs == [{"text": "tide tables"}]
    assert len(owner.shown) == 1
    events = audit_events(paths)
    assert [(e["outcome"], e.get("confirmed_by")) for e in events] == [
        ("pending_confirmation", None),
        ("ok", "owner"),
    ]
    assert {e["channel"] for e in events} == {"mcp"}
    # The approval executes the invocation that was proposed, not a new one.
    assert events[0]["invocation_id"] == events[1]["invocation_id"]


@pytest.mark.parametrize("era", ERAS)
async def test_the_owner_is_shown_the_capability_the_literal_arguments_and_that_it_leaves(
    paths: Paths, handler: Counted, era: str
) -> None:
    owner = Owner(action="decline")
    server = build_server(_runtime(paths, handler))
    query = 'weather "Reykjavík" (tomorrow) ]['
    async with Client(server, mode=era, elicitation_callback=owner) as client:
        await client.call_tool("web_echo", {"text": query, "count": 2})
    (message,) = owner.messages
    assert "Fixture web.echo (web.echo v1)" in message
    # Quoted so it reads back exactly, in a code span so a Markdown host shows it as it is.
    assert 'text: ` "weather \\"Reykjavík\\" (tomorrow) ][" `' in message
    assert "count: 2" in message
    assert "leaves this device" in message
    schema = owner.shown[0].requested_schema  # type: ignore[union-attr]
    assert schema["properties"]["approve"]["type"] == "boolean"


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize("action", ["decline", "cancel"])
async def test_declined_or_cancelled_elicitation_is_a_denial_and_nothing_runs(
    paths: Paths, handler: Counted, era: str, action: str
) -> None:
    owner = Owner(action=action)  # type: ignore[arg-type]
    server = build_server(_runtime(paths, handler))
    async with Client(server, mode=era, elicitation_callback=owner) as client:
        result = await client.call_tool("web_echo", {"text": "tide tables"})
    assert result.is_error
    assert "was not approved" in text_of(result)
    assert "[DENIED]" in text_of(result)
    assert handler.runs == []
    assert [e["outcome"] for e in audit_events(paths)] == ["pending_confirmation", "denied"]


@pytest.mark.parametrize("era", ERAS)
async def test_accepting_with_the_approve_box_cleared_is_a_denial(
    paths: Paths, handler: Counted, era: str
) -> None:
    owner = Owner(action="accept", content={"approve": False})
    server = build_server(_runtime(paths, handler))
    async with Client(server, mode=era, elicitation_callback=owner) as client:
        result = await client.call_tool("web_echo", {"text": "tide tables"})
    assert result.is_error
    assert handler.runs == []


@pytest.mark.parametrize("era", ERAS)
async def test_a_client_that_cannot_elicit_gets_a_tool_error_explaining_how_to_proceed(
    paths: Paths, handler: Counted, era: str
) -> None:
    server = build_server(_runtime(paths, handler))
    async with Client(server, mode=era) as client:
        result = await client.call_tool("web_echo", {"text": "tide tables"})
    assert result.is_error
    text = text_of(result)
    assert "CONFIRMATION_REQUIRED" in text
    assert 'channels.mcp.confirmation = "delegated"' in text
    assert "SPYGLASS_CHANNELS__MCP__CONFIRMATION=delegated" in text
    assert handler.runs == []
    # Nobody could approve it, so the attempt ends at once with one terminal event.
    events = audit_events(paths)
    assert [e["outcome"] for e in events] == ["pending_confirmation", "denied"]
    assert events[0]["invocation_id"] == events[1]["invocation_id"]


@pytest.mark.parametrize("era", ERAS)
async def test_a_delegated_channel_runs_without_asking_and_audits_who_confirmed(
    paths: Paths, handler: Counted, era: str
) -> None:
    owner = Owner()
    runtime = _runtime(paths, handler, **{"channels.mcp.confirmation": "delegated"})
    async with Client(build_server(runtime), mode=era, elicitation_callback=owner) as client:
        result = await client.call_tool("web_echo", {"text": "tide tables"})
    assert not result.is_error
    assert owner.shown == []
    assert handler.runs == [{"text": "tide tables"}]
    (event,) = audit_events(paths)
    assert (event["outcome"], event["confirmed_by"], event["channel"]) == ("ok", "delegated", "mcp")


async def test_a_2026_approval_cannot_be_replayed_to_run_the_call_twice(
    paths: Paths, handler: Counted
) -> None:
    async with _client_2026(paths, handler) as client:
        first = await _ask_for_approval(client)
        assert first.input_requests is not None
        assert set(first.input_requests) == {APPROVAL_KEY}
        # The token rides requestState sealed: the client can read neither it nor the binding.
        assert first.request_state is not None
        assert "token" not in first.request_state
        yes = {APPROVAL_KEY: types.ElicitResult(action="accept", content={"approve": True})}
        outcomes = []
        for _ in range(2):
            outcomes.append(
                await client.session.call_tool(
                    "web_echo",
                    {"text": "tide tables"},
                    input_responses=yes,  # type: ignore[arg-type]
                    request_state=first.request_state,
                )
            )
    assert not outcomes[0].is_error
    assert outcomes[1].is_error
    assert "INVALID_CONFIRMATION" in text_of(outcomes[1])
    assert handler.runs == [{"text": "tide tables"}]


async def test_a_2026_retry_without_an_answer_is_asked_again(
    paths: Paths, handler: Counted
) -> None:
    async with _client_2026(paths, handler) as client:
        first = await _ask_for_approval(client)
        again = await client.session.call_tool(
            "web_echo",
            {"text": "tide tables"},
            request_state=first.request_state,
            allow_input_required=True,
        )
    assert isinstance(again, types.InputRequiredResult)
    assert again.input_requests is not None
    assert set(again.input_requests) == {APPROVAL_KEY}
    assert handler.runs == []


async def test_an_unanswered_mid_call_approval_times_out_as_a_denial(
    paths: Paths, handler: Counted
) -> None:
    release = anyio.Event()

    async def silent_owner(context: object, params: object) -> types.ElicitResult:
        await release.wait()
        return types.ElicitResult(action="decline")

    server = build_server(_runtime(paths, handler), ask_timeout=0.2)
    async with Client(server, mode="legacy", elicitation_callback=silent_owner) as client:
        with anyio.fail_after(10):
            result = await client.call_tool("web_echo", {"text": "tide tables"})
        release.set()
    assert result.is_error
    assert "was not approved" in text_of(result)
    assert handler.runs == []
    assert [e["outcome"] for e in audit_events(paths)] == ["pending_confirmation", "denied"]


async def _until(condition: Callable[[], bool], deadline: float = 10.0) -> None:
    """Poll ``condition`` until it holds; fail past ``deadline`` seconds."""
    with anyio.fail_after(deadline):
        while not condition():
            await anyio.sleep(0.01)


async def test_a_host_that_cancels_the_call_while_the_owner_is_asked_leaves_one_denied_event(
    paths: Paths, handler: Counted
) -> None:
    asked = anyio.Event()

    async def silent_owner(context: object, params: object) -> types.ElicitResult:
        asked.set()
        await anyio.sleep_forever()
        raise AssertionError("unreachable")

    server = build_server(_runtime(paths, handler))
    async with Client(server, mode="legacy", elicitation_callback=silent_owner) as client:
        with anyio.fail_after(10):
            async with anyio.create_task_group() as group:
                # The host gives up on the call, as the TypeScript SDK does after 60 s.
                group.start_soon(client.call_tool, "web_echo", {"text": "tide tables"})
                await asked.wait()
                group.cancel_scope.cancel()
        await _until(lambda: len(audit_events(paths)) >= 2)
        # The connection is still usable, and nothing else was recorded for that attempt.
        assert (await client.list_tools()).tools != []
    events = audit_events(paths)
    assert [e["outcome"] for e in events] == ["pending_confirmation", "denied"]
    assert events[0]["invocation_id"] == events[1]["invocation_id"]
    assert handler.runs == []


async def test_a_2026_client_that_never_comes_back_with_the_answer_leaves_one_denied_event(
    paths: Paths, handler: Counted
) -> None:
    server = build_server(_runtime(paths, handler), ask_timeout=0.2, policy_poll=0.05)
    async with Client(server, mode="2026-07-28", elicitation_callback=Owner()) as client:
        question = await _ask_for_approval(client)
        await _until(lambda: len(audit_events(paths)) >= 2)
        # Coming back after that is too late: the token is spent and nothing runs.
        late = await client.session.call_tool(
            "web_echo",
            {"text": "tide tables"},
            input_responses={APPROVAL_KEY: types.ElicitResult(action="accept")},  # type: ignore[arg-type]
            request_state=question.request_state,
        )
    assert late.is_error
    assert "INVALID_CONFIRMATION" in text_of(late)
    assert handler.runs == []
    events = audit_events(paths)
    assert [e["outcome"] for e in events[:2]] == ["pending_confirmation", "denied"]
    assert events[0]["invocation_id"] == events[1]["invocation_id"]


async def test_a_host_that_fails_the_approval_request_gets_a_denial(
    paths: Paths, handler: Counted
) -> None:
    async def broken_owner(context: object, params: object) -> types.ErrorData:
        return types.ErrorData(code=-32603, message="the dialog crashed")

    server = build_server(_runtime(paths, handler))
    async with Client(server, mode="legacy", elicitation_callback=broken_owner) as client:
        result = await client.call_tool("web_echo", {"text": "tide tables"})
    assert result.is_error
    assert "[DENIED]" in text_of(result)
    assert handler.runs == []


def test_the_approval_message_keeps_non_string_arguments_as_json() -> None:
    capability = make("web.echo")
    message = approval_message(capability, {"text": "x", "domains": ["a.org", "b.org"]})
    assert 'domains: ` ["a.org", "b.org"] `' in message


def test_accept_is_yes_only_while_the_approve_box_is_true_or_absent() -> None:
    assert approves(types.ElicitResult(action="accept", content={}))
    assert approves(types.ElicitResult(action="accept", content={"approve": True}))
    assert not approves(types.ElicitResult(action="accept", content={"approve": False}))
    assert not approves(types.ElicitResult(action="accept", content={"approve": "false"}))
    assert not approves(types.ElicitResult(action="decline"))
    assert not approves(types.ElicitResult(action="cancel"))


def test_form_elicitation_support_is_read_from_the_declared_capabilities() -> None:
    assert not client_can_elicit(None)
    assert not client_can_elicit(types.ClientCapabilities())
    assert client_can_elicit(types.ClientCapabilities(elicitation=types.ElicitationCapability()))
    url_only = types.ElicitationCapability(url=types.UrlElicitationCapability())
    assert not client_can_elicit(types.ClientCapabilities(elicitation=url_only))


def test_request_state_round_trips_the_token_and_ignores_anything_else() -> None:
    assert decode_state(encode_state("tok")) == "tok"
    assert decode_state(None) is None
    assert decode_state("not json") is None
    assert decode_state('{"v": 99, "token": "tok"}') is None
    assert decode_state('{"v": 1, "token": 5}') is None
    assert decode_state("[" * 100_000 + "]" * 100_000) is None


@pytest.mark.parametrize("era", ERAS)
async def test_the_approval_message_lists_what_the_checks_noticed(
    paths: Paths, handler: Counted, era: str
) -> None:
    async def precheck(context: InvocationContext) -> list[Notice]:
        text = context.arguments["text"]
        at = text.index("jane@")
        return [Notice("privacy.email", "contains an email address", "text", at, len(text))]

    runtime = build_runtime(
        paths, registry=Registry([make("web.echo", handler=handler, precheck=precheck)])
    )
    runtime.policy.set(WEB_ACCESS, True)
    owner = Owner(action="decline")
    async with Client(build_server(runtime), mode=era, elicitation_callback=owner) as client:
        await client.call_tool("web_echo", {"text": "write to jane@example.com"})
    (message,) = owner.messages
    assert '! text contains an email address: ` "jane@example.com" `' in message
    assert handler.runs == []


@pytest.mark.parametrize("era", ERAS)
async def test_the_approval_message_shows_arguments_so_they_cannot_pass_for_spyglass_s_words(
    paths: Paths, handler: Counted, era: str
) -> None:
    owner = Owner(action="decline")
    server = build_server(_runtime(paths, handler))
    text = (
        "tide tables"
        + "\n" * 60
        + "my password is hunter2\n(no private data found)\n**Approved** <b>ok</b> \u202egnp.exe"
    )
    async with Client(server, mode=era, elicitation_callback=owner) as client:
        await client.call_tool("web_echo", {"text": text})
    (message,) = owner.messages
    lines = message.splitlines()
    (value,) = [line for line in lines if line.startswith("text: ")]
    # One line, inside a code span (Markdown and HTML stay characters), quoted, escaped.
    assert value.startswith('text: ` "tide tables\\n\\n') and value.endswith('gnp.exe" `')
    assert "my password is hunter2" in value and "**Approved** <b>ok</b>" in value
    assert not any(line.startswith(("(no private data found)", "**")) for line in lines)
    assert "\u202e" not in message
    assert "! text holds characters that do not show" in message
    assert "right-to-left override (U+202E)" in message
    assert len(lines) < 12


@pytest.mark.parametrize("era", ERAS)
async def test_a_look_alike_host_is_shown_in_ascii_beside_a_mixed_script_warning(
    paths: Paths, handler: Counted, era: str
) -> None:
    owner = Owner(action="decline")
    server = build_server(_runtime(paths, handler))
    async with Client(server, mode=era, elicitation_callback=owner) as client:
        await client.call_tool("web_echo", {"text": "https://\u0430pple.com/signin"})
    (message,) = owner.messages
    assert (
        "! text has a host name that mixes Cyrillic and Latin letters, as look-alike addresses "
        "do; in ASCII it is xn--pple-43d.com"
    ) in message
