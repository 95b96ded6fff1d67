"""What one outbound request costs the service's event loop: httpcore on anyio or on asyncio,
and the model client's cost per SSE chunk (docs/benchmarks.md, "Store hand-offs and outbound
requests").

    PYTHONPATH=src:. .venv/bin/python -m bench.outbound [--requests 1000] [--rounds 6]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
from tests.support.fake_model import Reply, text

from bench.measure import cpu_per_call
from bench.peers import child, serve
from spyglass.llm.client import ModelClient
from spyglass.net.backend import AsyncioBackend
from spyglass.net.pool import CoreTransport
from spyglass.settings import Settings

ONE = text("Here is the answer.", pieces=1)
BODY = {"messages": [{"role": "user", "content": "search the tides"}], "stream": True}


def choose(chunks: int) -> Callable[[dict[str, Any]], Reply]:
    """The model's answer: ``chunks`` SSE chunks to "long", one to anything else."""
    long = text("word " * chunks, pieces=chunks)
    return lambda body: long if body["messages"][-1]["content"] == "long" else ONE


async def pairs(urls: dict[str, str], requests: int, rounds: int) -> dict[str, list[float]]:
    model = urls["model"] + "/chat/completions"
    provider = urls["provider"] + "/search"

    def pair(http: httpx.AsyncClient) -> Callable[[], Awaitable[None]]:
        async def call() -> None:
            async with http.stream("POST", model, json=BODY) as response:
                async for _ in response.aiter_lines():
                    pass
            await http.get(provider, params={"q": "harbour tides", "format": "json"})

        return call

    found: dict[str, list[float]] = {"anyio": [], "asyncio": []}
    for _ in range(rounds):
        for name in found:
            options: dict[str, Any] = {"timeout": 30, "trust_env": False}
            if name == "asyncio":
                options["transport"] = CoreTransport(AsyncioBackend())
            async with httpx.AsyncClient(**options) as http:
                found[name].append(await cpu_per_call(requests, pair(http), max(1, requests // 10)))
    return found


async def chunk_cost(urls: dict[str, str], chunks: int, requests: int) -> tuple[float, float]:
    settings = Settings().llm.model_copy(update={"base_url": urls["model"]})
    client = ModelClient(settings)
    try:

        def answer(word: str) -> Callable[[], Awaitable[None]]:
            async def call() -> None:
                async for _ in client.stream([{"role": "user", "content": word}]):
                    pass

            return call

        short = await cpu_per_call(requests, answer("short"), max(1, requests // 10))
        long = await cpu_per_call(requests, answer("long"), max(1, requests // 10))
    finally:
        await client.aclose()
    return short, (long - short) / (chunks - 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--chunks", type=int, default=200)
    parser.add_argument("--peers", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.peers:
        asyncio.run(serve(choose(args.peers)))
        return
    with child("bench.outbound", "--peers", str(args.chunks)) as urls:
        found = asyncio.run(pairs(urls, args.requests, args.rounds))
        short, per_chunk = asyncio.run(chunk_cost(urls, args.chunks, args.requests // 4))
    load = os.getloadavg()
    print(f"load average (1/5/15 min) at the end: {load[0]:.2f} / {load[1]:.2f} / {load[2]:.2f}")
    for name, values in found.items():
        each = ", ".join(f"{v:.0f}" for v in values)
        print(
            f"httpcore on {name}: {statistics.median(values):.0f} µs of CPU per pair "
            f"(model stream + provider GET); rounds: {each}"
        )
    print(f"ModelClient.stream, a one-chunk answer: {short:.0f} µs of CPU")
    print(f"ModelClient.stream, each further SSE chunk: {per_chunk:.1f} µs of CPU")


if __name__ == "__main__":
    main()
