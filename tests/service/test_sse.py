"""The event-stream response: wire format, and a client disconnect closing the turn."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from typing import Any

from spyglass.service.sse import EventStreamResponse, encode


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


async def test_a_finished_turn_ends_the_body() -> None:
    async def turn() -> AsyncGenerator[tuple[str, dict[str, Any]], None]:
        yield "done", {"text": "hi"}

    never = asyncio.Event()

    async def receive() -> dict[str, Any]:
        await never.wait()
        return {"type": "http.disconnect"}

    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await asyncio.wait_for(
        EventStreamResponse(turn())({"type": "http"}, receive, send),  # type: ignore[arg-type]
        timeout=5,
    )
    assert sent[-1] == {"type": "http.response.body", "body": b"", "more_body": False}
    assert sent[0]["headers"][0] == (b"content-type", b"text/event-stream; charset=utf-8")
