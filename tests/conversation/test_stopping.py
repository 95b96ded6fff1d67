"""Stop: a running turn ends at once; the call under way is cancelled, calls not started
never start, and what was produced is kept."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler

import pytest

from spyglass.conversation.stopping import STOPPED
from spyglass.conversation.turn import ConversationRunner, Event
from spyglass.runtime import Runtime
from tests.support.fake_model import FakeModel, text, tool_calls
from tests.support.turns import done
from tests.support.web import LoopbackWeb


class _HeldWeb(LoopbackWeb):
    """The loopback web, holding every request until released; counts those that came."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.arrived = 0
        super().__init__()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        base = super()._handler()
        web = self

        class Held(base):  # type: ignore[valid-type,misc]
            def do_GET(self) -> None:
                with web._lock:
                    web.arrived += 1
                web.release.wait(10)
                super().do_GET()

        return Held


@pytest.fixture
def web() -> Iterator[LoopbackWeb]:
    server = _HeldWeb()
    with server:
        yield server
        server.release.set()


async def until(check: object, what: str) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 5
    while not check():  # type: ignore[operator]
        if loop.time() > deadline:
            raise AssertionError(f"never: {what}")
        await asyncio.sleep(0.005)


async def test_stop_cancels_the_call_under_way_and_the_round_s_later_calls_never_reach_the_web(
    service: ConversationRunner, fake_model: FakeModel, service_runtime: Runtime, web: _HeldWeb
) -> None:
    service_runtime.policy.set("web_access_enabled", True)
    # Calls that need no card (as a channel whose host asks, or the flagged rule, runs them).
    service_runtime.executor.delegated_channels = frozenset({"console"})
    fake_model.script(
        tool_calls(
            ("web_search", {"query": "a"}, "c1"),
            ("web_search", {"query": "b"}, "c2"),
            ("web_search", {"query": "c"}, "c3"),
            style="openai",
        ),
        text("never asked"),
    )
    state = await service.start(None, "three searches")
    events: list[Event] = []

    async def read() -> None:
        async for event in service.run(state):
            events.append(event)

    reader = asyncio.create_task(read())
    await until(lambda: any(name == "tool_start" for name, _ in events), "a tool_start")
    await until(lambda: web.arrived == 1, "the first search at the web")
    assert service.stop(state.conversation_id)
    await asyncio.wait_for(reader, timeout=5)
    web.release.set()
    body = done(events)
    assert web.arrived == 1, "a call after the stop reached the web"
    assert [n["code"] for n in body["notices"]] == [STOPPED]
    assert [name for name, _ in events].count("tool_start") == 1
    assert len(fake_model.requests) == 1  # the model was not asked again
    # What was produced is kept: the turn is in history, without the calls never made.
    saved = await service.history.messages(state.conversation_id)
    assert saved[-1]["role"] == "assistant"
    assert not service.stop(state.conversation_id)  # nothing runs any more


async def test_a_stop_while_the_reader_holds_an_event_ends_the_turn_before_the_next_call(
    service: ConversationRunner, fake_model: FakeModel, service_runtime: Runtime, web: _HeldWeb
) -> None:
    service_runtime.policy.set("web_access_enabled", True)
    service_runtime.executor.delegated_channels = frozenset({"console"})
    web.release.set()
    fake_model.script(
        tool_calls(
            ("web_search", {"query": "a"}, "c1"),
            ("web_search", {"query": "b"}, "c2"),
            style="openai",
        ),
        text("never asked"),
    )
    state = await service.start(None, "two searches")
    events: list[Event] = []
    async for event in service.run(state):
        events.append(event)
        if event[0] == "tool_start":
            assert service.stop(state.conversation_id)
    assert web.arrived == 0
    assert done(events)["notices"][0]["code"] == STOPPED
