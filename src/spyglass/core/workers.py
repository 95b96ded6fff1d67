"""The worker threads every store's blocking call runs on, with a cheaper hand-off than
``asyncio.to_thread``.

``asyncio.to_thread`` goes through the loop's default ``ThreadPoolExecutor``: a
``concurrent.futures.Future`` with its own condition variable per call, the executor's
bookkeeping (a semaphore and a lock) on every submit, and an asyncio future chained to the
concurrent one by two callbacks, each state change copied across. A search turn makes about
a dozen such trips to its stores. :class:`WorkerThreads` does the same with one queue the
threads wait on and one asyncio future per call, settled from the worker by a single
``call_soon_threadsafe`` (standard-library interfaces only): about half the CPU per trip
(``bench/handoff.py``); why it is kept, with its threshold, is in docs/decisions.md.

What the call sees is what ``asyncio.to_thread`` gives it: the caller's context variables,
its exception raised in the caller, and a caller that is cancelled stops waiting while the
call itself runs to its end on its thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import os
import queue
import threading
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

#: At most this many threads per pool; calls beyond wait in its queue.
MAX_THREADS = 8

_Job = tuple[
    asyncio.AbstractEventLoop,
    "asyncio.Future[Any]",
    contextvars.Context,
    Callable[..., Any],
    tuple[Any, ...],
]


def _settle(future: asyncio.Future[Any], failed: bool, value: Any) -> None:
    if future.done():  # the caller was cancelled
        return
    if failed:
        future.set_exception(value)
    else:
        future.set_result(value)


class WorkerThreads:
    """Threads started as they are needed, up to ``max_threads``, each taking the next call
    from one queue."""

    def __init__(self, name: str, max_threads: int = MAX_THREADS) -> None:
        self.name = name
        self.max_threads = max_threads
        self._reset()
        os.register_at_fork(after_in_child=self._reset)

    def _reset(self) -> None:
        # (A forked child has the queue but none of the threads.)
        self._jobs: queue.SimpleQueue[_Job] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._threads = 0
        self._idle = 0

    async def run(self, function: Callable[..., T], *args: Any) -> T:
        """``function(*args)`` on one of these threads; what it returns or raises."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        with self._lock:
            start = self._idle == 0 and self._threads < self.max_threads
            if start:
                self._threads += 1
            else:
                self._idle -= 1  # this call will take an idle thread
        if start:
            threading.Thread(
                target=self._work, name=f"{self.name}-{self._threads}", daemon=True
            ).start()
        self._jobs.put((loop, future, contextvars.copy_context(), function, args))
        return await future

    def _work(self) -> None:
        take = self._jobs.get
        while True:
            loop, future, context, function, args = take()
            try:
                value = context.run(function, *args)
                failed = False
            except BaseException as exc:
                value, failed = exc, True
            # Free before the caller hears back, so that its next call finds this thread
            # instead of starting another.
            with self._lock:
                self._idle += 1
            # A closed loop raises RuntimeError: nobody is waiting any more.
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(_settle, future, failed, value)
            del loop, future, context, function, args, value


#: The threads every store's blocking call takes.
STORES = WorkerThreads("spyglass-store")
