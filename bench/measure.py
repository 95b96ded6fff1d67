"""What several benchmarks measure with: an HTTP client, wall-clock samples of a call, CPU per
call, and the CPU of a process and everything below it (``/proc``)."""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import httpx


def client(token: str = "", connections: int = 100, base_url: str = "") -> httpx.AsyncClient:
    """Up to ``connections`` at once, ``token`` as a bearer, none expiring while idle (httpcore
    1.0.9 may close an idle one it has just handed to a request: encode/httpcore#1110)."""
    limits = httpx.Limits(
        max_connections=connections, max_keepalive_connections=connections, keepalive_expiry=None
    )
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx.AsyncClient(
        base_url=base_url, headers=headers, timeout=120, limits=limits, trust_env=False
    )


async def timed(count: int, call: Callable[[], Awaitable[object]]) -> list[float]:
    """Milliseconds of each of ``count`` calls, after one warm-up call (first-use imports and
    connection set-up are not per-call cost)."""
    await call()
    samples = []
    for _ in range(count):
        started = time.perf_counter()
        await call()
        samples.append((time.perf_counter() - started) * 1000)
    return samples


async def cpu_per_call(count: int, call: Callable[[], Awaitable[object]], warm_up: int) -> float:
    """Microseconds of this process's CPU per ``call``, after ``warm_up`` calls."""
    for _ in range(warm_up):
        await call()
    started = time.process_time()
    for _ in range(count):
        await call()
    return (time.process_time() - started) / count * 1e6


def descendants(root: int) -> list[int]:
    """``root`` and every process below it, from ``/proc``."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                stat = (entry / "stat").read_text()
                parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    found, frontier = [root], [root]
    while frontier:
        frontier = [pid for pid, parent in parents.items() if parent in frontier]
        found += frontier
    return found


def process_cpu(pid: int) -> float:
    """User and system CPU seconds of process ``pid``, all threads."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime


def cpu_seconds(roots: list[int]) -> float:
    """:func:`process_cpu` of ``roots`` and their descendants."""
    total = 0.0
    for pid in {p for root in roots for p in descendants(root)}:
        with contextlib.suppress(OSError, IndexError, ValueError):
            total += process_cpu(pid)
    return total
