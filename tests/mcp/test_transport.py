"""The real ``spyglass mcp``: stdio and Streamable HTTP subprocesses, driven by the SDK client."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from spyglass.capabilities import BUILTIN
from spyglass.core.policy import WEB_ACCESS, PolicyFile
from spyglass.mcp.transport import bind_loopback
from spyglass.paths import Paths
from tests.mcp.peers import Peer, serve
from tests.mcp.processes import (
    INITIALIZE,
    SPYGLASS,
    environment,
    http_client,
    http_server,
    owner_token,
    raw_stdio,
)
from tests.mcp.support import ERAS, Owner, audit_events, text_of


@pytest.fixture
def searxng() -> Iterator[Peer]:
    with serve("searxng") as peer:
        yield peer


@pytest.fixture
def env(home: Path, searxng: Peer) -> dict[str, str]:
    PolicyFile(Paths(home).policy_file).set(WEB_ACCESS, True)
    return environment(
        home,
        SPYGLASS_SEARCH__PROVIDERS="searxng",
        SPYGLASS_SEARCH__SEARXNG__BASE_URL=searxng.base_url,
    )


@asynccontextmanager
async def stdio(
    env: dict[str, str],
    tmp_path: Path,
    mode: str = "auto",
    owner: Owner | None = None,
    *flags: str,
) -> AsyncIterator[Client]:
    params = StdioServerParameters(command=SPYGLASS, args=["-v", "mcp", *flags], env=env)
    with (tmp_path / "server-stderr.log").open("w") as errlog:
        async with Client(
            stdio_client(params, errlog=errlog), mode=mode, elicitation_callback=owner
        ) as client:
            yield client


# -- stdio -----------------------------------------------------------------------------------


async def test_stdio_lists_the_web_tools_with_the_registry_schemas_and_annotations(
    env: dict[str, str], tmp_path: Path
) -> None:
    async with stdio(env, tmp_path) as client:
        listed = await client.list_tools()
    tools = {tool.name: tool for tool in listed.tools}
    assert sorted(tools) == ["web_fetch", "web_search"]
    for name in ("web.search", "web.fetch"):
        capability = BUILTIN.get(name)
        assert capability is not None
        tool = tools[capability.wire_name]
        assert tool.input_schema == capability.advertised_arguments
        assert tool.output_schema is None
        assert tool.title == capability.title
        assert tool.annotations is not None
        assert tool.annotations.read_only_hint is True
        assert tool.annotations.open_world_hint is True


@pytest.mark.parametrize("era", ERAS)
async def test_stdio_an_approved_search_reaches_the_searxng_peer_and_is_audited_as_mcp(
    env: dict[str, str], tmp_path: Path, home: Path, searxng: Peer, era: str
) -> None:
    owner = Owner()
    async with stdio(env, tmp_path, era, owner) as client:
        result = await client.call_tool("web_search", {"query": "harbour tides", "count": 2})
    assert not result.is_error, text_of(result)
    assert 'query: ` "harbour tides" `' in owner.messages[0]
    assert [r["query"]["q"] for r in searxng.requests] == ["harbour tides"]
    assert result.structured_content is None
    text = text_of(result)
    assert "(2 from searxng)" in text
    assert "1. [Harbour tide tables](https://tides.example.org/harbour)" in text
    assert "https://moon.example.net/tides" in text
    events = audit_events(Paths(home))
    assert [(e["outcome"], e["channel"], e.get("provider")) for e in events] == [
        ("pending_confirmation", "mcp", None),
        ("ok", "mcp", "searxng"),
    ]


@pytest.mark.parametrize("era", ERAS)
async def test_stdio_a_declined_search_never_reaches_the_peer(
    env: dict[str, str], tmp_path: Path, home: Path, searxng: Peer, era: str
) -> None:
    async with stdio(env, tmp_path, era, Owner(action="decline")) as client:
        result = await client.call_tool("web_search", {"query": "harbour tides"})
    assert result.is_error
    assert "[DENIED]" in text_of(result)
    assert searxng.requests == []
    assert [e["outcome"] for e in audit_events(Paths(home))] == ["pending_confirmation", "denied"]


async def test_stdio_a_host_without_elicitation_is_told_how_to_proceed(
    env: dict[str, str], tmp_path: Path, searxng: Peer
) -> None:
    async with stdio(env, tmp_path) as client:
        result = await client.call_tool("web_search", {"query": "harbour tides"})
    assert result.is_error
    assert "CONFIRMATION_REQUIRED" in text_of(result)
    assert "delegated" in text_of(result)
    assert searxng.requests == []


async def test_stdio_delegated_mode_runs_the_call_and_audits_confirmed_by_delegated(
    env: dict[str, str], tmp_path: Path, home: Path, searxng: Peer
) -> None:
    env = {**env, "SPYGLASS_CHANNELS__MCP__CONFIRMATION": "delegated"}
    async with stdio(env, tmp_path) as client:
        result = await client.call_tool("web_search", {"query": "harbour tides"})
    assert not result.is_error, text_of(result)
    assert len(searxng.requests) == 1
    (event,) = audit_events(Paths(home))
    assert (event["confirmed_by"], event["channel"]) == ("delegated", "mcp")


async def test_stdio_policy_off_is_a_tool_error_saying_how_to_enable_web_access(
    env: dict[str, str], tmp_path: Path, home: Path, searxng: Peer
) -> None:
    PolicyFile(Paths(home).policy_file).set(WEB_ACCESS, False)
    owner = Owner()
    async with stdio(env, tmp_path, "auto", owner) as client:
        result = await client.call_tool("web_search", {"query": "harbour tides"})
    assert result.is_error
    assert "spyglass policy enable" in text_of(result)
    assert owner.shown == [] and searxng.requests == []


async def test_stdio_a_fetch_of_a_loopback_url_is_a_private_address_tool_error(
    env: dict[str, str], tmp_path: Path, searxng: Peer
) -> None:
    async with stdio(env, tmp_path, "auto", Owner()) as client:
        result = await client.call_tool("web_fetch", {"url": f"{searxng.base_url}/search"})
    assert result.is_error
    assert "FETCH_TARGET_REJECTED/private_address" in text_of(result)
    assert searxng.requests == []


async def test_stdio_malformed_arguments_are_a_tool_error_naming_the_field(
    env: dict[str, str], tmp_path: Path
) -> None:
    async with stdio(env, tmp_path, "auto", Owner()) as client:
        result = await client.call_tool("web_search", {"query": "tides", "count": 50})
    assert result.is_error
    assert "count must be at most 20" in text_of(result)


@pytest.mark.parametrize("era", ERAS)
async def test_stdio_verbose_logs_keep_queries_approval_texts_and_results_out(
    env: dict[str, str], tmp_path: Path, era: str
) -> None:
    async with stdio(env, tmp_path, era, Owner()) as client:
        result = await client.call_tool("web_search", {"query": "harbour tides", "count": 2})
    assert not result.is_error, text_of(result)
    log = (tmp_path / "server-stderr.log").read_text(encoding="utf-8")
    assert "DEBUG" in log  # -v was on
    for content in ("harbour tides", "harbour+tides", "Harbour tide tables", "moon.example.net"):
        assert content not in log, content


@pytest.mark.parametrize("era", ERAS)
async def test_stdio_the_documented_debug_switch_lets_content_into_the_log(
    env: dict[str, str], tmp_path: Path, era: str
) -> None:
    async with stdio({**env, "SPYGLASS_LOG_CONTENT": "1"}, tmp_path, era, Owner()) as client:
        await client.call_tool("web_search", {"query": "harbour tides", "count": 2})
    assert "harbour+tides" in (tmp_path / "server-stderr.log").read_text(encoding="utf-8")


def test_stdout_carries_only_protocol_messages_while_logging_goes_to_stderr(
    env: dict[str, str], home: Path
) -> None:
    # A malformed policy file logs a warning (once) during the first call: logging mid-call.
    Paths(home).policy_file.write_text("{not json", encoding="utf-8")
    with raw_stdio(env, "-v") as server:
        server.send(INITIALIZE)
        assert server.response(1)["result"]["serverInfo"]["name"] == "spyglass"
        server.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        server.send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        # An unreadable policy is a policy that allows nothing: no tool is offered.
        assert server.response(2)["result"]["tools"] == []
        server.send(
            {
                "jsonrpc": "2.0",
                "id": 3,
                "method": "tools/call",
                "params": {"name": "web_search", "arguments": {"query": "tides"}},
            }
        )
        answer = server.response(3)["result"]
        assert answer["isError"] is True
        # A broken policy file is reported as itself, not as "web access is off".
        assert "POLICY_UNREADABLE" in answer["content"][0]["text"]
        # Arguments that are not an object are the executor's to refuse, as a tool error.
        server.send(
            {
                "jsonrpc": "2.0",
                "id": 4,
                "method": "tools/call",
                "params": {"name": "web_fetch", "arguments": ["https://example.org/"]},
            }
        )
        odd = server.response(4)["result"]
        assert odd["isError"] is True
        assert "arguments must be a JSON object" in odd["content"][0]["text"]
        assert server.process.stdin is not None
        server.process.stdin.close()
        stdout = server.stdout.rest()
        stderr = server.stderr.rest()
    assert server.process.returncode == 0
    for line in stdout:
        message: dict[str, Any] = json.loads(line)
        assert message["jsonrpc"] == "2.0"
    assert any("is not valid JSON" in line for line in stderr)


# -- a person's server (--token-file) ---------------------------------------------------------


def users(env: dict[str, str], *args: str) -> str:
    """``spyglass users ARGS`` run as the owner would, beside the running server."""
    import subprocess

    done = subprocess.run(
        [SPYGLASS, "users", *args], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def person_token(env: dict[str, str], name: str) -> str:
    """A new API token for ``name`` (replacing any earlier one)."""
    return str(json.loads(users(env, "api-token", name, "--json"))["api_token"])


async def test_stdio_a_person_marked_needs_approval_later_waits_for_an_approver_next_call(
    env: dict[str, str], tmp_path: Path, searxng: Peer
) -> None:
    users(env, "add", "sam")
    token_file = tmp_path / "sam-token"
    token_file.write_text(person_token(env, "sam") + "\n", encoding="utf-8")
    owner = Owner()
    async with stdio(env, tmp_path, "auto", owner, "--token-file", str(token_file)) as client:
        before = await client.call_tool("web_search", {"query": "harbour tides"})
        users(env, "set", "sam", "--needs-approval")
        after = await client.call_tool("web_search", {"query": "tide tables"})
    assert not before.is_error, text_of(before)
    assert after.is_error
    assert "AWAITING_APPROVAL" in text_of(after)
    assert [r["query"]["q"] for r in searxng.requests] == ["harbour tides"]


async def test_stdio_a_persons_server_refuses_once_their_token_is_replaced(
    env: dict[str, str], tmp_path: Path, home: Path, searxng: Peer
) -> None:
    users(env, "add", "sam")
    token_file = tmp_path / "sam-token"
    token_file.write_text(person_token(env, "sam") + "\n", encoding="utf-8")
    owner = Owner()
    async with stdio(env, tmp_path, "auto", owner, "--token-file", str(token_file)) as client:
        before = await client.list_tools()
        person_token(env, "sam")  # the documented revocation: a new token replaces the old
        after = await client.list_tools()
        refused = await client.call_tool("web_search", {"query": "harbour tides"})
    assert sorted(tool.name for tool in before.tools) == ["web_fetch", "web_search"]
    assert after.tools == []
    assert refused.is_error
    assert "no longer signs anyone in" in text_of(refused)
    assert "spyglass users api-token" in text_of(refused)
    assert owner.shown == [] and searxng.requests == []
    assert audit_events(Paths(home)) == []


# -- Streamable HTTP -------------------------------------------------------------------------


def test_http_without_a_credential_is_refused_with_401_saying_how_to_send_one(
    env: dict[str, str], searxng: Peer
) -> None:
    accept = {"Accept": "application/json, text/event-stream"}
    with http_server(env) as server, httpx.Client(timeout=30, trust_env=False) as http:
        bare = http.post(server.url, json=INITIALIZE, headers=accept)
        wrong = http.post(
            server.url, json=INITIALIZE, headers={**accept, "Authorization": "Bearer not-it"}
        )
    for refused in (bare, wrong):
        assert refused.status_code == 401
        assert refused.headers["www-authenticate"] == "Bearer"
        message = refused.json()["error"]["message"]
        assert "Authorization: Bearer" in message
        assert "api-token" in message and "spyglass users api-token" in message
    assert searxng.requests == []


async def test_http_a_persons_token_runs_their_calls_under_their_rules(
    env: dict[str, str], home: Path, searxng: Peer
) -> None:
    users(env, "add", "sam")
    users(env, "set", "sam", "--needs-approval")
    sam = person_token(env, "sam")
    owner = Owner()
    with http_server(env) as server:
        async with http_client(server.url, sam, "legacy", owner) as client:
            waits = await client.call_tool("web_search", {"query": "harbour tides"})
        async with http_client(server.url, owner_token(home), "legacy", owner) as client:
            runs = await client.call_tool("web_search", {"query": "tide tables"})
    assert waits.is_error and "AWAITING_APPROVAL" in text_of(waits)
    assert not runs.is_error, text_of(runs)
    assert [r["query"]["q"] for r in searxng.requests] == ["tide tables"]


@pytest.mark.parametrize("era", ["auto", "legacy"])
async def test_http_lists_tools_and_runs_an_approved_search(
    env: dict[str, str], home: Path, searxng: Peer, era: str
) -> None:
    owner = Owner()
    with http_server(env, "-v") as server:
        async with http_client(server.url, owner_token(home), era, owner) as client:
            listed = await client.list_tools()
            result = await client.call_tool("web_search", {"query": "harbour tides"})
    assert sorted(tool.name for tool in listed.tools) == ["web_fetch", "web_search"]
    assert not result.is_error, text_of(result)
    assert len(owner.shown) == 1
    assert [r["query"]["q"] for r in searxng.requests] == ["harbour tides"]
    assert {e["channel"] for e in audit_events(Paths(home))} == {"mcp"}


@pytest.mark.parametrize("era", ["auto", "legacy"])
async def test_http_declined_and_unsupported_elicitation_run_nothing(
    env: dict[str, str], home: Path, searxng: Peer, era: str
) -> None:
    with http_server(env) as server:
        token = owner_token(home)
        async with http_client(server.url, token, era, Owner(action="cancel")) as client:
            declined = await client.call_tool("web_search", {"query": "harbour tides"})
        async with http_client(server.url, token, era) as client:
            unsupported = await client.call_tool("web_search", {"query": "harbour tides"})
    assert declined.is_error and "[DENIED]" in text_of(declined)
    assert unsupported.is_error and "CONFIRMATION_REQUIRED" in text_of(unsupported)
    assert searxng.requests == []


def test_http_refuses_a_foreign_host_or_origin_and_accepts_a_loopback_page(
    env: dict[str, str], home: Path
) -> None:
    with http_server(env) as server, httpx.Client(timeout=30, trust_env=False) as http:
        accept = {
            "Accept": "application/json, text/event-stream",
            "Authorization": f"Bearer {owner_token(home)}",
        }
        rebound = http.post(server.url, json=INITIALIZE, headers={**accept, "Host": "evil.test"})
        foreign = http.post(
            server.url, json=INITIALIZE, headers={**accept, "Origin": "https://evil.test"}
        )
        local = http.post(
            server.url, json=INITIALIZE, headers={**accept, "Origin": "http://localhost:6274"}
        )
    assert rebound.status_code == 421
    assert foreign.status_code == 403
    assert local.status_code == 200


def test_http_says_clearly_when_the_port_is_taken(env: dict[str, str]) -> None:
    import subprocess

    with http_server(env) as server:
        taken = subprocess.run(
            [SPYGLASS, "mcp", "--http", "--port", str(server.port)],
            env=env,
            capture_output=True,
            text=True,
            timeout=30,
        )
    assert taken.returncode == 1
    assert f"cannot listen on 127.0.0.1:{server.port}" in taken.stderr
    assert "--port" in taken.stderr
    assert "Traceback" not in taken.stderr


async def test_connections_accepted_on_the_http_socket_have_nagle_turned_off() -> None:
    # Nagle's algorithm on a response socket made every 2026-07-28 call wait ~40 ms for the
    # client's delayed ACK; asyncio turns it off only on sockets that say they are TCP.
    seen: list[int] = []

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        sock = writer.get_extra_info("socket")
        seen.append(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
        writer.close()

    listening = bind_loopback(0)
    server = await asyncio.start_server(handle, sock=listening)
    async with server:
        port = listening.getsockname()[1]
        with anyio.fail_after(10):
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            await reader.read()
            writer.close()
            await writer.wait_closed()
    assert seen and seen[0] != 0


async def test_http_deleting_the_session_while_the_owner_is_asked_ends_the_attempt_once(
    env: dict[str, str], home: Path
) -> None:
    accept = {"Accept": "application/json, text/event-stream"}
    initialize = json.loads(json.dumps(INITIALIZE))
    initialize["params"]["capabilities"] = {"elicitation": {"form": {}}}
    call = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "web_search", "arguments": {"query": "tide tables"}},
    }
    with http_server(env) as server:
        accept["Authorization"] = f"Bearer {owner_token(home)}"
        async with httpx.AsyncClient(timeout=30, trust_env=False) as http:
            opened = await http.post(server.url, json=initialize, headers=accept)
            session = {**accept, "Mcp-Session-Id": opened.headers["mcp-session-id"]}
            initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
            await http.post(server.url, json=initialized, headers=session)
            async with http.stream("POST", server.url, json=call, headers=session) as stream:
                async for line in stream.aiter_lines():
                    if "elicitation/create" in line:
                        break
                else:
                    raise AssertionError("the owner was never asked")
                # The host goes away before anyone answers.
                deleted = await http.delete(server.url, headers=session)
                assert deleted.status_code in (200, 204)
        with anyio.fail_after(20):
            while len(audit_events(Paths(home))) < 2:
                await anyio.sleep(0.05)
    events = audit_events(Paths(home))
    assert [e["outcome"] for e in events] == ["pending_confirmation", "denied"]
    assert events[0]["invocation_id"] == events[1]["invocation_id"]
