"""The tool list follows the owner's switches, and clients hear when it changes."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import mcp.types as types
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from spyglass.core.policy import WEB_ACCESS, PolicyFile
from spyglass.core.registry import Registry
from spyglass.mcp.server import build_server
from spyglass.mcp.tools import ToolTable
from spyglass.paths import Paths
from spyglass.runtime import Runtime, build_runtime
from tests.mcp.processes import SPYGLASS, environment
from tests.support.capabilities import make

#: Fast enough that a test sees a change within a few polls, slow enough not to spin.
POLL = 0.05
DEADLINE = 10.0


def _runtime(paths: Paths, *, enabled: bool) -> Runtime:
    runtime = build_runtime(
        paths, registry=Registry([make("web.echo"), make("web.other"), make("news.read")])
    )
    runtime.policy.set(WEB_ACCESS, enabled)
    return runtime


@dataclass
class Notifications:
    """A client message handler that counts ``tools/list_changed`` notifications."""

    changed: int = 0
    seen: list[Any] = field(default_factory=list)
    _arrived: anyio.Event = field(default_factory=anyio.Event)

    async def __call__(self, message: Any) -> None:
        self.seen.append(message)
        if isinstance(message, types.ServerNotification):
            message = getattr(message, "root", message)
        if isinstance(message, types.ToolListChangedNotification):
            self.changed += 1
            self._arrived.set()

    async def wait(self) -> None:
        with anyio.fail_after(DEADLINE):
            await self._arrived.wait()
        self._arrived = anyio.Event()


def test_the_table_offers_only_what_the_policy_allows(paths: Paths) -> None:
    runtime = _runtime(paths, enabled=False)
    table = ToolTable(runtime.registry)
    assert table.offered(runtime.policy) == []
    runtime.policy.set(WEB_ACCESS, True)
    assert table.offered_names(runtime.policy) == ("news_read", "web_echo", "web_other")


async def test_a_handshake_client_is_offered_no_tools_while_web_access_is_off_and_hears_it_go_on(
    paths: Paths,
) -> None:
    runtime = _runtime(paths, enabled=False)
    heard = Notifications()
    server = build_server(runtime, policy_poll=POLL)
    async with Client(server, mode="legacy", message_handler=heard) as client:
        assert client.server_capabilities.tools is not None
        assert client.server_capabilities.tools.list_changed is True
        assert (await client.list_tools()).tools == []
        runtime.policy.set(WEB_ACCESS, True)
        await heard.wait()
        names = [tool.name for tool in (await client.list_tools()).tools]
        assert names == ["news_read", "web_echo", "web_other"]
        runtime.policy.set(WEB_ACCESS, False)
        await heard.wait()
        assert (await client.list_tools()).tools == []
    # One notification per change, however often the connection listed the tools.
    assert heard.changed == 2


async def test_a_2026_client_listening_for_tool_changes_hears_the_owner_turn_web_access_on(
    paths: Paths,
) -> None:
    runtime = _runtime(paths, enabled=False)
    server = build_server(runtime, policy_poll=POLL)
    async with Client(server, mode="2026-07-28") as client:
        assert (await client.list_tools()).tools == []
        async with client.listen(tools_list_changed=True) as subscription:
            runtime.policy.set(WEB_ACCESS, True)
            with anyio.fail_after(DEADLINE):
                event = await subscription.__anext__()
        assert type(event).__name__ == "ToolsListChanged"
        names = [tool.name for tool in (await client.list_tools()).tools]
        assert names == ["news_read", "web_echo", "web_other"]


async def test_nothing_is_announced_while_the_policy_stays_the_same(paths: Paths) -> None:
    runtime = _runtime(paths, enabled=True)
    heard = Notifications()
    server = build_server(runtime, policy_poll=POLL)
    async with Client(server, mode="legacy", message_handler=heard) as client:
        await client.list_tools()
        # Rewriting the same value changes the file but not what is offered.
        runtime.policy.set(WEB_ACCESS, True)
        # Then a real change, whose notification must be the first one to arrive.
        runtime.policy.set(WEB_ACCESS, False)
        await heard.wait()
    assert heard.changed == 1


async def test_a_short_off_and_on_between_two_polls_is_announced_to_a_client_that_listed_meanwhile(
    paths: Paths,
) -> None:
    runtime = _runtime(paths, enabled=True)
    heard = Notifications()
    # The production interval: the off and on below both fall between two polls.
    server = build_server(runtime, policy_poll=1.0)
    async with Client(server, mode="legacy", message_handler=heard) as client:
        assert (await client.list_tools()).tools != []
        runtime.policy.set(WEB_ACCESS, False)
        assert (await client.list_tools()).tools == []
        runtime.policy.set(WEB_ACCESS, True)
        # The client holds an empty list although web access is on: it must hear so.
        await heard.wait()
        assert (await client.list_tools()).tools != []
    assert heard.changed == 1


async def test_a_real_stdio_server_tells_its_host_when_the_owner_turns_web_access_on(
    home: Path, tmp_path: Path
) -> None:
    policy = PolicyFile(Paths(home).policy_file)
    params = StdioServerParameters(command=SPYGLASS, args=["mcp"], env=environment(home))
    heard = Notifications()
    with (tmp_path / "server-stderr.log").open("w") as errlog:
        async with Client(
            stdio_client(params, errlog=errlog), mode="legacy", message_handler=heard
        ) as client:
            assert (await client.list_tools()).tools == []
            # The owner flips the switch from another process, as `spyglass policy enable` does.
            policy.set(WEB_ACCESS, True)
            await heard.wait()
            names = sorted(tool.name for tool in (await client.list_tools()).tools)
    assert names == ["web_fetch", "web_search"]
