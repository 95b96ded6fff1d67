"""The event-stream response: wire format, and a client that goes away or stops reading
ending the turn."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import AsyncGenerator
from typing import Any

import httpx
import pytest

from spyglass.paths import Paths
from spyglass.runtime import build_runtime
from spyglass.service.sse import EventStreamResponse, encode
from tests.support.fake_model import FakeModel, text
from tests.support.server import LOOPS, running_service, wait_until


async def _a_client_that_stays() -> dict[str, Any]:
    """An ASGI receive whose client never goes away."""
    await asyncio.Event().wait()
    return {"type": "http.disconnect"}


def test_an_event_is_name_then_json_data_then_a_blank_line() -> None:
    assert encode("content", {"delta": "é"}) == 'event: content\ndata: {"delta": "é"}\n\n'.encode()


async def test_a_disconnect_cancels_the_turn_and_runs_its_cleanup() -> None:
    cleaned = asyncio.Event()
    started = asyncio.Event()
    gone = asyncio.Event()
    sent: list[dict[str, Any]] = []

    async def turn() -> AsyncGenerator[tuple[str, dict[str, Any]], None]:
        try:
            yield "turn", {"conversation_id": "c"}
            started.set()
            await asyncio.Event().wait()  # a model that never answers
            yield "done", {}
        finally:
            cleaned.set()

    async def receive() -> dict[str, Any]:
        await gone.wait()
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    response = asyncio.create_task(
        EventStreamResponse(turn())({"type": "http"}, receive, send)  # type: ignore[arg-type]
    )
    await asyncio.wait_for(started.wait(), timeout=5)
    gone.set()
    await asyncio.wait_for(response, timeout=5)
    assert cleaned.is_set()
    assert sent[0]["status"] == 200
    assert sent[1]["body"].startswith(b"event: turn\n")
    assert all(b"done" not in m.get("body", b"") for m in sent)


async def test_a_send_that_never_completes_ends_the_turn_and_leaves_no_task_behind() -> None:
    cleaned = asyncio.Event()
    produced: list[int] = []

    async def turn() -> AsyncGenerator[tuple[str, dict[str, Any]], None]:
        try:
            for number in range(10_000):
                produced.append(number)
                yield "content", {"delta": "x" * 100}
            yield "done", {}
        finally:
            cleaned.set()

    never = asyncio.Event()

    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        if len(sent) >= 3:
            await never.wait()  # the client stopped reading: the send never completes
        sent.append(message)

    before = asyncio.all_tasks()
    response = EventStreamResponse(turn(), stall_seconds=0.2)
    await asyncio.wait_for(response({"type": "http"}, _a_client_that_stays, send), timeout=10)  # type: ignore[arg-type]
    assert cleaned.is_set()
    # The turn stopped at the send that never completed, not thousands of events later.
    assert len(produced) <= 5
    assert asyncio.all_tasks() == before


async def test_the_server_stopping_still_cancels_the_response_and_closes_the_turn() -> None:
    cleaned = asyncio.Event()
    started = asyncio.Event()

    async def turn() -> AsyncGenerator[tuple[str, dict[str, Any]], None]:
        try:
            yield "turn", {"conversation_id": "c"}
            started.set()
            await asyncio.Event().wait()
            yield "done", {}
        finally:
            cleaned.set()

    async def send(message: dict[str, Any]) -> None:
        pass

    before = asyncio.all_tasks()
    response = asyncio.create_task(
        EventStreamResponse(turn())({"type": "http"}, _a_client_that_stays, send)  # type: ignore[arg-type]
    )
    await asyncio.wait_for(started.wait(), timeout=5)
    response.cancel()
    # Not the client going away: the cancel is not swallowed.
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(response, timeout=5)
    assert cleaned.is_set()
    assert asyncio.all_tasks() == before


async def test_a_disconnect_as_the_last_event_goes_out_ends_the_response_quietly() -> None:
    gone = asyncio.Event()

    async def turn() -> AsyncGenerator[tuple[str, dict[str, Any]], None]:
        yield "done", {"text": "hi"}

    async def receive() -> dict[str, Any]:
        await gone.wait()
        return {"type": "http.disconnect"}

    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)
        if message.get("more_body") is False:
            gone.set()  # the client leaves as the body ends...
            await asyncio.sleep(0)  # ...and the listener hears it before the send returns

    before = asyncio.all_tasks()
    response = asyncio.create_task(
        EventStreamResponse(turn())({"type": "http"}, receive, send)  # type: ignore[arg-type]
    )
    await asyncio.wait_for(response, timeout=5)
    assert not response.cancelled() and response.cancelling() == 0
    assert sent[-1] == {"type": "http.response.body", "body": b"", "more_body": False}
    assert asyncio.all_tasks() == before


async def test_a_finished_turn_ends_the_body() -> None:
    async def turn() -> AsyncGenerator[tuple[str, dict[str, Any]], None]:
        yield "done", {"text": "hi"}

    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await asyncio.wait_for(
        EventStreamResponse(turn())({"type": "http"}, _a_client_that_stays, send),  # type: ignore[arg-type]
        timeout=5,
    )
    assert sent[-1] == {"type": "http.response.body", "body": b"", "more_body": False}
    assert sent[0]["headers"][0] == (b"content-type", b"text/event-stream; charset=utf-8")


PIECE_CHARS = 1000
PIECES = 12_000  # 12 MB of answer: more than every socket buffer on the way can hold


@pytest.mark.parametrize("loop", LOOPS)
def test_a_client_that_stops_reading_ends_the_turn_instead_of_stalling_it(
    paths: Paths, fake_model: FakeModel, loop: str
) -> None:
    runtime = build_runtime(
        paths,
        overrides={
            "llm.base_url": fake_model.base_url,
            "llm.model": "fake",
            "server.stream_stall_seconds": 0.5,
        },
    )
    fake_model.script(text("x" * (PIECE_CHARS * PIECES), pieces=PIECES), text("Short."))
    with running_service(runtime, loop=loop) as (base, token):
        port = int(base.rsplit(":", 1)[1])
        body = json.dumps({"text": "write a very long answer"}).encode()
        reader = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        reader.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        reader.settimeout(10)
        reader.connect(("127.0.0.1", port))
        reader.sendall(
            b"POST /api/v1/conversation/message HTTP/1.1\r\n"
            + f"Host: 127.0.0.1:{port}\r\nAuthorization: Bearer {token}\r\n".encode()
            + b"Accept: text/event-stream\r\nContent-Type: application/json\r\n"
            + f"Content-Length: {len(body)}\r\n\r\n".encode()
            + body
        )
        received = b""
        while b"event: turn" not in received or b"\n\n" not in received.split(b"event: turn")[1]:
            received += reader.recv(4096)
        first = received.split(b"event: turn\ndata: ", 1)[1].split(b"\n", 1)[0]
        conversation = json.loads(first)["conversation_id"]
        # The client now reads nothing more, and keeps its connection open.
        with httpx.Client(
            base_url=base, headers={"Authorization": f"Bearer {token}"}, trust_env=False
        ) as other:

            def saved() -> list[dict[str, Any]]:
                answer = other.get(f"/api/v1/conversations/{conversation}")
                return [m for m in answer.json()["messages"] if m["role"] == "assistant"]

            wait_until(lambda: bool(saved()), timeout=60, what="the stalled turn to end")
            [kept] = saved()
            # What was produced before the client stopped reading is kept, not the rest.
            assert 0 < len(kept["text"]) < PIECE_CHARS * PIECES
            # The conversation goes on: its turn is over, nothing holds it.
            again = other.post(
                "/api/v1/conversation/message",
                json={"conversation_id": conversation, "text": "shorter, please"},
                timeout=30,
            )
            assert again.status_code == 200 and again.json()["text"] == "Short."
        reader.close()
