"""Transport overhead of the guarded fetch against a plain httpx client, same run.

    .venv/bin/python bench/fetch_transport.py [--rounds N]

Method: docs/benchmarks.md, "Transport overhead".
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from collections.abc import Awaitable, Callable

import httpx

from bench._peer import NAME, guarded_fetcher, server
from spyglass.capabilities.fetch import read

CONCURRENCY = 32


async def measure(port: int, rounds: int) -> dict[str, list[float]]:
    results: dict[str, list[float]] = {k: [] for k in ("ours", "httpx", "ours32", "httpx32")}
    plain_url = f"http://127.0.0.1:{port}/page"
    ours_url = f"http://{NAME}/page"
    limits = httpx.Limits(max_connections=CONCURRENCY, max_keepalive_connections=CONCURRENCY)
    async with guarded_fetcher(port) as fetcher, httpx.AsyncClient(limits=limits) as client:

        async def ours_once() -> None:
            page = await read(await fetcher.fetch(ours_url))
            assert len(page.document.text) == 100_000

        async def plain_once() -> None:
            response = await client.get(plain_url)
            assert len(response.text) == 100_000

        for _ in range(5):  # warm both pools
            await ours_once()
            await plain_once()

        async def single(once: Callable[[], Awaitable[None]]) -> None:
            await once()

        async def batch(once: Callable[[], Awaitable[None]]) -> None:
            await asyncio.gather(*(once() for _ in range(CONCURRENCY)))

        # Sequential first, then concurrent; within each phase the side that goes first
        # alternates every round so neither inherits the other's leftovers.
        for shape, suffix in ((single, ""), (batch, "32")):
            for round_number in range(rounds):
                sides = [("ours", ours_once), ("httpx", plain_once)]
                if round_number % 2:
                    sides.reverse()
                for name, once in sides:
                    started = time.perf_counter()
                    await shape(once)
                    results[name + suffix].append(time.perf_counter() - started)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=200)
    options = parser.parse_args()
    with server() as port:
        results = asyncio.run(measure(port, options.rounds))
    med = {k: statistics.median(v) * 1000 for k, v in results.items()}
    print(f"100 KB page from a loopback server, {options.rounds} rounds")
    print(
        f"sequential: ours {med['ours']:.2f} ms, httpx {med['httpx']:.2f} ms, "
        f"ratio {med['ours'] / med['httpx']:.2f}"
    )
    print(
        f"{CONCURRENCY} concurrent: ours {med['ours32']:.1f} ms, httpx {med['httpx32']:.1f} ms "
        f"per batch, ratio {med['ours32'] / med['httpx32']:.2f}"
    )


if __name__ == "__main__":
    main()
