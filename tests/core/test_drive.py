"""A coroutine run from synchronous code goes without an event loop until it asks for one."""

from __future__ import annotations

import asyncio
import threading

import pytest

from spyglass.core import drive


def test_a_coroutine_that_never_waits_runs_on_this_thread_without_a_loop() -> None:
    seen: list[object] = []

    def work(value: int) -> int:
        seen.append(threading.get_ident())
        return value * 2

    async def call() -> int:
        assert drive.direct()
        with pytest.raises(RuntimeError):
            asyncio.get_running_loop()
        return await drive.blocking(work, 21)

    assert drive.run(call()) == 42
    assert seen == [threading.get_ident()]
    assert not drive.direct()


def test_a_coroutine_goes_on_from_where_it_asked_for_a_loop() -> None:
    steps: list[str] = []

    async def call() -> str:
        steps.append("before")
        await drive.loop_wanted()
        steps.append("after")
        assert not drive.direct()
        loop = asyncio.get_running_loop()
        await asyncio.sleep(0)
        worker = await drive.blocking(threading.get_ident)
        assert worker != threading.get_ident()  # blocking work leaves the loop's thread now
        assert asyncio.get_running_loop() is loop
        return "done"

    assert drive.run(call()) == "done"
    assert steps == ["before", "after"]


def test_an_exception_comes_out_of_either_half_unchanged() -> None:
    async def early() -> None:
        raise KeyError("before the loop")

    async def late() -> None:
        await drive.loop_wanted()
        await asyncio.sleep(0)
        raise KeyError("on the loop")

    with pytest.raises(KeyError, match="before the loop"):
        drive.run(early())
    with pytest.raises(KeyError, match="on the loop"):
        drive.run(late())


def test_waiting_without_asking_for_a_loop_first_is_a_clear_programming_error() -> None:
    finished: list[bool] = []

    async def call() -> None:
        try:
            await asyncio.sleep(0)  # yields to a loop that is not there
        finally:
            finished.append(True)

    with pytest.raises(RuntimeError, match="loop_wanted"):
        drive.run(call())
    assert finished == [True]  # the coroutine was closed, its cleanup ran


async def test_inside_an_event_loop_blocking_work_runs_on_a_worker_thread() -> None:
    assert not drive.direct()
    await drive.loop_wanted()  # returns at once: there is a loop
    assert await drive.blocking(threading.get_ident) != threading.get_ident()
