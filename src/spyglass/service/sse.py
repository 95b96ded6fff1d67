"""A Server-Sent Events response that ends the turn when the client goes or stops reading.

The turn's events are sent from the request's own task as they come; one listener task
waits for the client to disconnect:

- a send returns at once while the connection's write buffer has room (uvicorn waits only
  once it is past its high-water mark), so a client that reads a little slowly does not hold
  the turn up at every event, and memory stays bounded by that buffer;
- a send that cannot complete within ``stall_seconds`` (the client stopped reading: the
  socket and transport buffers are full) counts as the client going away;
- a disconnect cancels the turn where it is waiting; whichever ends first — the turn, a
  disconnect, a stalled send — ends the response, and the event generator is always closed,
  so a turn's ``finally`` (which saves what was produced and releases a resumed turn's
  claim) runs promptly, not whenever the garbage collector gets to it. No task outlives the
  response.

(One task and no queue per response: a task group with a producer, a sender and a listener,
joined by a memory stream, cost measurably more per streamed turn; docs/benchmarks.md, round
five.)
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncGenerator
from typing import Any

from starlette.types import Receive, Scope, Send

logger = logging.getLogger(__name__)

Event = tuple[str, dict[str, Any]]

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
        task = asyncio.current_task()
        assert task is not None
        # Set once the turn's events are over: from then on a disconnect cancels nothing.
        ended = False
        gone = False

        async def listen() -> None:
            nonlocal gone
            while (await receive())["type"] != "http.disconnect":
                pass
            if not ended:
                gone = True
                task.cancel()

        listener = asyncio.ensure_future(listen())
        try:
            async for name, data in self.events:
                await self._send(send, encode(name, data), more=True)
            await self._send(send, b"", more=False)
        except asyncio.CancelledError:
            # The listener's cancel, and only that, means the client went away: nobody gets
            # the rest, and the turn has ended. Any other (the server stopping) goes on up.
            if not gone or task.uncancel() > 0:
                raise
        except (OSError, TimeoutError) as exc:
            # Gone mid-send, or not reading: either way nobody gets the rest.
            if isinstance(exc, TimeoutError):
                logger.info(
                    "a streaming client read nothing for %gs; ending its turn",
                    self.stall_seconds,
                )
        finally:
            # (No await between the try's end and this: the listener cannot cancel after.)
            ended = True
            listener.cancel()
            try:
                await asyncio.shield(self.events.aclose())
            finally:
                if not listener.done():
                    await asyncio.wait([listener])

    async def _send(self, send: Send, body: bytes, *, more: bool) -> None:
        async with asyncio.timeout(self.stall_seconds):
            await send({"type": "http.response.body", "body": body, "more_body": more})
