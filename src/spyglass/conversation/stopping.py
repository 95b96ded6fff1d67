"""Stop: the person ends a running turn at once.

A turn runs as an async generator in the task of whoever reads it (the SSE response, or the
JSON answer's request). Stopping it cancels that task only while it waits *inside* the turn
(the model's stream, a call under way), so the call under way is cancelled where it waits;
while the reader holds an event (sending it) the turn is only marked, and ends as soon as it
is asked for the next one. Either way calls not started never start, and the turn ends as
any other: what was produced is saved and the reader gets ``done``.

Only the process running the turn can stop it; a console that closes its stream stops a
turn anywhere (the service ends a turn whose client went away).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Iterator

#: The notice a stopped turn ends with.
STOPPED = "STOPPED"
STOPPED_MESSAGE = "Stopped. What was written so far is kept; calls not started were not made."


class Stopper:
    """One running turn's stop."""

    def __init__(self) -> None:
        self.stopped = False
        self._task = asyncio.current_task()
        self._out = False
        self._cancelled = False
        #: Set once the turn's steps are over: a stop then changes nothing.
        self._settled = False

    @contextlib.contextmanager
    def outside(self) -> Iterator[None]:
        """While the turn's reader holds an event: a stop then cancels nothing."""
        self._out = True
        try:
            yield
        finally:
            self._out = False
            # The reader asks for the next event from its task, which may be another.
            self._task = asyncio.current_task()

    @property
    def ended_turn(self) -> bool:
        """Whether the stop came while the turn still ran, and ended it."""
        return self.stopped

    def settle(self) -> None:
        """The turn's steps are over (ended, failed or stopped): a stop now does nothing."""
        self._settled = True

    def stop(self) -> None:
        if self.stopped or self._settled:
            return
        self.stopped = True
        if not self._out and self._task is not None and not self._task.done():
            self._cancelled = True
            self._task.cancel()

    def caught(self) -> bool:
        """Whether a cancellation that reached the turn was this stop's (and is absorbed)."""
        if not self._cancelled or self._task is None:
            return False
        self._cancelled = False
        return self._task.uncancel() == 0


class TurnStops:
    """The turns running in this process, by conversation."""

    def __init__(self) -> None:
        self._running: dict[str, list[Stopper]] = {}
        self._lock = threading.Lock()

    def begin(self, conversation_id: str) -> Stopper:
        stopper = Stopper()
        with self._lock:
            self._running.setdefault(conversation_id, []).append(stopper)
        return stopper

    def end(self, conversation_id: str, stopper: Stopper) -> None:
        with self._lock:
            running = self._running.get(conversation_id, [])
            if stopper in running:
                running.remove(stopper)
            if not running:
                self._running.pop(conversation_id, None)

    def stop(self, conversation_id: str) -> bool:
        """Stop every turn running for ``conversation_id``; whether there was one."""
        with self._lock:
            running = list(self._running.get(conversation_id, []))
        for stopper in running:
            stopper.stop()
        return bool(running)
