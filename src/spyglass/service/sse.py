"""A Server-Sent Events response that ends the turn when the client goes or stops reading.

The turn, the sender and a disconnect listener run side by side:

- the turn's events go through a small bounded buffer, so a client that reads a little
  slowly does not hold the turn up at every event, and memory stays bounded;
- a send that cannot complete within ``stall_seconds`` (the client stopped reading: the
  socket and transport buffers are full) counts as the client going away;
- whichever ends first — the turn, a disconnect, a stalled send — cancels the others, and
  the event generator is always closed, so a turn's ``finally`` (which saves what was
  produced and releases a resumed turn's claim) runs promptly, not whenever the garbage
  collector gets to it. No task outlives the response.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncGenerator
from typing import Any

import anyio
from starlette.types import Receive, Scope, Send

logger = logging.getLogger(__name__)

Event = tuple[str, dict[str, Any]]

#: Events the turn may run ahead of the client before it waits for the client to read.
BUFFER_EVENTS = 64
DEFAULT_STALL_SECONDS = 30.0


def encode(name: str, data: dict[str, Any]) -> bytes:
    # Text is repaired before it gets here; "replace" is the last net, so an event is always
    # sent and the stream always reaches `done`.
    text = f"event: {name}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"
    return text.encode("utf-8", "replace")


class EventStreamResponse:
    def __init__(
        self,
        events: AsyncGenerator[Event, None],
        *,
        stall_seconds: float = DEFAULT_STALL_SECONDS,
    ) -> None:
        self.events = events
        self.stall_seconds = stall_seconds

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
        outbox, inbox = anyio.create_memory_object_stream[bytes](BUFFER_EVENTS)
        try:
            async with anyio.create_task_group() as group:

                async def produce() -> None:
                    async with outbox:
                        async for name, data in self.events:
                            try:
                                await outbox.send(encode(name, data))
                            except anyio.BrokenResourceError:
                                return  # the sender gave up on the client

                async def deliver() -> None:
                    try:
                        async with inbox:
                            async for body in inbox:
                                await self._send(send, body, more=True)
                        await self._send(send, b"", more=False)
                    except (OSError, TimeoutError) as exc:
                        # Gone mid-send, or not reading: either way nobody gets the rest.
                        if isinstance(exc, TimeoutError):
                            logger.info(
                                "a streaming client read nothing for %gs; ending its turn",
                                self.stall_seconds,
                            )
                    group.cancel_scope.cancel()

                async def listen() -> None:
                    while (await receive())["type"] != "http.disconnect":
                        pass
                    group.cancel_scope.cancel()

                group.start_soon(produce)
                group.start_soon(deliver)
                group.start_soon(listen)
        finally:
            with anyio.CancelScope(shield=True):
                await self.events.aclose()

    async def _send(self, send: Send, body: bytes, *, more: bool) -> None:
        with anyio.fail_after(self.stall_seconds):
            await send({"type": "http.response.body", "body": body, "more_body": more})
