"""A Server-Sent Events response that stops the turn when the client goes away.

The event stream and a disconnect listener run side by side; whichever ends first cancels
the other, and the event generator is always closed, so a turn's ``finally`` (which saves
what was produced) runs promptly instead of whenever the garbage collector gets to it.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator
from typing import Any

import anyio
from starlette.types import Receive, Scope, Send

Event = tuple[str, dict[str, Any]]


def encode(name: str, data: dict[str, Any]) -> bytes:
    # Text is repaired before it gets here; "replace" is the last net, so an event is always
    # sent and the stream always reaches `done`.
    text = f"event: {name}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"
    return text.encode("utf-8", "replace")


class EventStreamResponse:
    def __init__(self, events: AsyncGenerator[Event, None]) -> None:
        self.events = events

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [
                    (b"content-type", b"text/event-stream; charset=utf-8"),
                    (b"cache-control", b"no-store"),
                    (b"x-accel-buffering", b"no"),
                ],
            }
        )
        try:
            async with anyio.create_task_group() as group:

                async def stream() -> None:
                    try:
                        async for name, data in self.events:
                            await send(
                                {
                                    "type": "http.response.body",
                                    "body": encode(name, data),
                                    "more_body": True,
                                }
                            )
                        await send({"type": "http.response.body", "body": b"", "more_body": False})
                    except OSError:
                        pass  # the client went away mid-send
                    group.cancel_scope.cancel()

                async def listen() -> None:
                    while (await receive())["type"] != "http.disconnect":
                        pass
                    group.cancel_scope.cancel()

                group.start_soon(stream)
                group.start_soon(listen)
        finally:
            with anyio.CancelScope(shield=True):
                await self.events.aclose()
