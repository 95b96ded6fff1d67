"""The stores' worker threads: what a call sees and gives back is what ``asyncio.to_thread``
gives, on either event loop."""

from __future__ import annotations

import asyncio
import contextvars
import threading
from collections.abc import Callable, Coroutine
from typing import Any

import pytest

from spyglass.core.workers import WorkerThreads
from tests.support.server import LOOPS

DEADLINE = 10.0
WHO: contextvars.ContextVar[str] = contextvars.ContextVar("who", default="nobody")


def run_on(loop: str, main: Callable[[], Coroutine[Any, Any, None]]) -> None:
    if loop == "uvloop":
        import uvloop

        uvloop.run(main())
    else:
        asyncio.run(main())


@pytest.mark.parametrize("loop", LOOPS)
def test_a_call_runs_on_a_worker_thread_and_its_value_comes_back(loop: str) -> None:
    workers = WorkerThreads("test")

    async def main() -> None:
        here = threading.get_ident()
        there = await asyncio.wait_for(workers.run(threading.get_ident), DEADLINE)
        assert there != here
        assert await asyncio.wait_for(workers.run(divmod, 7, 2), DEADLINE) == (3, 1)

    run_on(loop, main)


@pytest.mark.parametrize("loop", LOOPS)
def test_what_the_call_raises_is_raised_in_the_caller(loop: str) -> None:
    workers = WorkerThreads("test")

    def fails() -> None:
        raise LookupError("no such row")

    async def main() -> None:
        with pytest.raises(LookupError, match="no such row"):
            await asyncio.wait_for(workers.run(fails), DEADLINE)
        # The thread that raised takes the next call.
        assert await asyncio.wait_for(workers.run(len, "abc"), DEADLINE) == 3

    run_on(loop, main)


@pytest.mark.parametrize("loop", LOOPS)
def test_the_call_sees_the_callers_context_variables(loop: str) -> None:
    workers = WorkerThreads("test")

    async def main() -> None:
        WHO.set("the caller")
        assert await asyncio.wait_for(workers.run(WHO.get), DEADLINE) == "the caller"

    run_on(loop, main)


@pytest.mark.parametrize("loop", LOOPS)
def test_a_cancelled_caller_stops_waiting_and_the_call_still_runs_to_its_end(loop: str) -> None:
    workers = WorkerThreads("test")
    release, ended = threading.Event(), threading.Event()

    def slow() -> None:
        assert release.wait(DEADLINE)
        ended.set()

    async def main() -> None:
        waiting = asyncio.ensure_future(workers.run(slow))
        await asyncio.sleep(0)
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
        assert not ended.is_set()
        release.set()
        assert await asyncio.to_thread(ended.wait, DEADLINE)
        # The thread is free again, and a later call is answered.
        assert await asyncio.wait_for(workers.run(len, "ab"), DEADLINE) == 2

    run_on(loop, main)


@pytest.mark.parametrize("loop", LOOPS)
def test_calls_at_once_start_threads_up_to_the_limit_and_the_rest_wait_their_turn(
    loop: str,
) -> None:
    workers = WorkerThreads("test", max_threads=2)
    release = threading.Event()
    threads: set[int] = set()
    started = threading.Semaphore(0)

    def held() -> int:
        threads.add(threading.get_ident())
        started.release()
        assert release.wait(DEADLINE)
        return threading.get_ident()

    async def main() -> None:
        calls = [asyncio.ensure_future(workers.run(held)) for _ in range(5)]
        # Two run at once (the limit); the other three wait in the queue.
        for _ in range(2):
            assert await asyncio.to_thread(started.acquire, True, DEADLINE)
        assert not await asyncio.to_thread(started.acquire, True, 0.05)
        release.set()
        done = await asyncio.wait_for(asyncio.gather(*calls), DEADLINE)
        assert set(done) == threads and len(threads) == 2

    run_on(loop, main)


def test_sequential_calls_reuse_one_thread() -> None:
    workers = WorkerThreads("test")

    async def main() -> None:
        seen = {
            await asyncio.wait_for(workers.run(threading.get_ident), DEADLINE) for _ in range(20)
        }
        assert len(seen) == 1

    asyncio.run(main())
