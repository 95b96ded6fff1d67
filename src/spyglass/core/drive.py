"""Running the executor's coroutines from synchronous code, without an event loop until one
is needed.

A command-line call that is refused (by validation, the owner's switches or a capability's own
check) waits for nothing: its blocking work is a file read or a SQLite query, which may as well
run on the calling thread. :func:`run` drives such a coroutine to its end directly, so
``asyncio`` (about a tenth of a refused command's start-up, docs/benchmarks.md) is never
imported. The first time the coroutine reaches something that needs an event loop it awaits
:func:`loop_wanted`, and :func:`run` carries it on, from that very point, on a fresh event
loop. The coroutine is the same either way: the executor has one code path, and one decision
point, whether it is run directly or on a loop.

Inside an event loop (the HTTP service, the MCP server) none of this applies: :func:`blocking`
runs its function on a worker thread (:data:`spyglass.core.lane.STORES`) and
:func:`loop_wanted` returns at once.
"""

from __future__ import annotations

import types
from collections.abc import Callable, Coroutine, Generator
from contextvars import ContextVar
from typing import Any, TypeVar

T = TypeVar("T")

#: True while :func:`run` drives a coroutine on the calling thread, with no event loop.
_DIRECT: ContextVar[bool] = ContextVar("spyglass_direct", default=False)


class _LoopWanted:
    """What a coroutine driven directly yields when it needs an event loop from then on."""


_LOOP_WANTED = _LoopWanted()


def direct() -> bool:
    """Whether the running coroutine is driven by :func:`run` without an event loop."""
    return _DIRECT.get()


@types.coroutine
def loop_wanted() -> Generator[Any, Any, None]:
    """Await this before anything that needs a running event loop (a timeout, a network
    client, a task): driven directly, the coroutine goes on from here on a fresh loop."""
    if _DIRECT.get():
        yield _LOOP_WANTED


async def blocking(function: Callable[..., T], *args: Any) -> T:
    """``function(*args)`` on a worker thread, so the event loop never waits on it; in place
    when there is no event loop to keep free (the coroutine is driven directly)."""
    if _DIRECT.get():
        return function(*args)
    from spyglass.core.lane import STORES

    return await STORES.run(function, *args)


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run ``coroutine`` to its end from synchronous code and return what it returns.

    Directly on this thread while it needs no event loop; from its first :func:`loop_wanted`
    on, on a fresh event loop (``asyncio.run``). Must not be called from inside a running
    event loop, like ``asyncio.run``.
    """
    token = _DIRECT.set(True)
    try:
        signal = coroutine.send(None)
    except StopIteration as done:
        value: T = done.value
        return value
    finally:
        _DIRECT.reset(token)
    if signal is not _LOOP_WANTED:
        coroutine.close()
        raise RuntimeError(
            "a coroutine driven without an event loop awaited something that needs one; "
            "await spyglass.core.drive.loop_wanted() before it"
        )
    import asyncio

    return asyncio.run(_on_a_loop(coroutine))


async def _on_a_loop(coroutine: Coroutine[Any, Any, T]) -> T:
    return await _resumed(coroutine)


@types.coroutine
def _resumed(coroutine: Coroutine[Any, Any, T]) -> Generator[Any, Any, T]:
    # The coroutine stopped inside loop_wanted(): it goes on from there, now inside the loop
    # (``yield from`` sends it None first, which is what loop_wanted's yield returns).
    return (yield from coroutine.__await__())
