"""What the conversation service costs on top of the model and the search provider.

    .venv/bin/python -m bench.service_turns [--turns 200] [--runs 3]
    PYTHONPATH=src:. nice -n 5 .venv/bin/python -m bench.service_turns --search-only 600 \
        --against /tmp/main

Method, and ``--search-only``, ``--against`` and ``--stream``: docs/benchmarks.md,
"Conversation service".
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from tests.support.fake_model import Reply, text, tool_call
from tests.support.serve_process import ServeProcess

from bench.measure import client, process_cpu, timed
from bench.peers import child, serve
from spyglass.core.policy import WEB_ACCESS, PolicyFile
from spyglass.paths import Paths

MESSAGE = "/api/v1/conversation/message"
TOKEN = "bench-service-turns-token-0123456789abcdef"
CONCURRENCY = 50


#: The two answers the model gives, built once (the peer renders each to bytes once).
SEARCH = tool_call("web_search", {"query": "harbour tides", "count": 2}, pieces=1)
ANSWER = text("Here is the answer.", pieces=1)


def answer(body: dict[str, Any]) -> Reply:
    """Search once when tools are offered and the user just spoke; otherwise answer."""
    last = body["messages"][-1]
    if body.get("tools") and last["role"] == "user" and last["content"].startswith("search"):
        return SEARCH
    return ANSWER


async def plain_turn(http: httpx.AsyncClient) -> None:
    response = await http.post(MESSAGE, json={"text": "hello"})
    if response.status_code != 200:
        raise RuntimeError(f"turn failed: {response.status_code} {response.text[:200]}")


async def search_turn(http: httpx.AsyncClient, stream: bool = False) -> None:
    """A whole search turn: message, pending confirmation, approval, answer."""
    first = await answered(http, {"text": "search the tides"}, stream)
    pending = first.get("pending_confirmation")
    if not pending:
        raise RuntimeError(f"no confirmation asked: {str(first)[:200]}")
    approval = {"token": pending["token"], "approve": True}
    body = {"conversation_id": first["conversation_id"], "confirmation": approval}
    result = await answered(http, body, stream)
    if result["events"][0]["status"] != "ok":
        raise RuntimeError(f"search turn failed: {str(result)[:300]}")


async def answered(http: httpx.AsyncClient, body: dict[str, Any], stream: bool) -> dict[str, Any]:
    """The answer to ``body``: JSON, or (``stream``) the ``done`` of its Server-Sent Events."""
    if not stream:
        response = await http.post(MESSAGE, json=body)
        if response.status_code != 200:
            raise RuntimeError(f"turn failed: {response.status_code} {response.text[:200]}")
        return dict(response.json())
    headers = {"Accept": "text/event-stream"}
    async with http.stream("POST", MESSAGE, json=body, headers=headers) as response:
        if response.status_code != 200:
            raise RuntimeError(f"turn failed: {response.status_code}")
        name = ""
        async for line in response.aiter_lines():
            if line.startswith("event: "):
                name = line[7:]
            elif line.startswith("data: ") and name == "done":
                done: dict[str, Any] = json.loads(line[6:])
                return done
    raise RuntimeError("the stream ended without done")


async def model_call(http: httpx.AsyncClient, model_url: str) -> None:
    """One streamed answer from the model, read to the end."""
    body = {"messages": [{"role": "user", "content": "hello"}], "stream": True}
    async with http.stream("POST", f"{model_url}/chat/completions", json=body) as response:
        async for _ in response.aiter_lines():
            pass


async def direct_turn(http: httpx.AsyncClient, model_url: str, provider_url: str) -> None:
    """The same work without Spyglass: model asks, provider answers, model answers."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": "search the tides"}]
    tools = [{"type": "function", "function": {"name": "web_search", "parameters": {}}}]
    for round_ in range(2):
        async with http.stream(
            "POST",
            f"{model_url}/chat/completions",
            json={
                "messages": messages,
                "stream": True,
                **({"tools": tools} if round_ == 0 else {}),
            },
        ) as response:
            async for _ in response.aiter_lines():
                pass
        if round_ == 0:
            search = await http.get(
                f"{provider_url}/search", params={"q": "harbour tides", "format": "json"}
            )
            messages = [*messages[:1], {"role": "user", "content": search.text[:200]}]


async def one_run(base: str, pid: int, peers: dict[str, str], turns: int) -> dict[str, Any]:
    async with contextlib.AsyncExitStack() as stack:
        http = await stack.enter_async_context(client(TOKEN, base_url=base))
        direct = await stack.enter_async_context(client())
        # Each of the 50 concurrent clients has its own connection, as separate programs
        # would: one httpx client shared by 50 requests at a time spends more of this
        # process's time looking through its pool than the service spends on a turn.
        many = [
            await stack.enter_async_context(client(TOKEN, base_url=base))
            for _ in range(CONCURRENCY)
        ]
        many_direct = [await stack.enter_async_context(client()) for _ in range(CONCURRENCY)]
        cpu = process_cpu(pid) * 1000
        plain = await timed(turns, lambda: plain_turn(http))
        plain_cpu = (process_cpu(pid) * 1000 - cpu) / (turns + 1)
        await asyncio.gather(*(plain_turn(each) for each in many))  # connect them all first
        started = time.perf_counter()
        batches = max(1, turns // CONCURRENCY)
        cpu = process_cpu(pid) * 1000
        for _ in range(batches):
            await asyncio.gather(*(plain_turn(each) for each in many))
        wall = time.perf_counter() - started
        concurrent_rate = batches * CONCURRENCY / wall
        concurrent_cpu = (process_cpu(pid) * 1000 - cpu) / (batches * CONCURRENCY)
        # What the peers allow: the model alone, asked by as many clients at once.
        await asyncio.gather(*(model_call(each, peers["model"]) for each in many_direct))
        started = time.perf_counter()
        for _ in range(batches):
            await asyncio.gather(*(model_call(each, peers["model"]) for each in many_direct))
        model_rate = batches * CONCURRENCY / (time.perf_counter() - started)
        await search_turn(http)  # warm-up: the search stack is imported by the first search
        await direct_turn(direct, peers["model"], peers["provider"])
        through, baseline, search_cpu = await paired(http, direct, peers, pid, turns // 2)

    # Separate clients, each with its own connection, as browser tabs would be.
    async def conversation() -> None:
        async with client(TOKEN, base_url=base) as own:
            await search_turn(own)

    results = await asyncio.gather(
        *(conversation() for _ in range(CONCURRENCY)), return_exceptions=True
    )
    errors = [r for r in results if isinstance(r, BaseException)]
    for error in errors[:3]:
        print(f"error: {type(error).__name__}: {error}", file=sys.stderr)
    return {
        # Turns over the time they took, as the 50-client rate is: 1 / median latency would
        # leave out the slow turns (a collection, a store write queued) that a whole run of
        # 50 at a time cannot.
        "plain_rate": len(plain) * 1000 / sum(plain),
        "plain_ms": statistics.median(plain),
        "plain_cpu": plain_cpu,
        "concurrent_cpu": concurrent_cpu,
        "busy": concurrent_rate * concurrent_cpu / 10,
        "model_rate": model_rate,
        "search_cpu": search_cpu / (turns // 2),
        "concurrent_rate": concurrent_rate,
        "through_ms": statistics.median(through),
        "direct_ms": statistics.median(baseline),
        "added_ms": statistics.median(a - b for a, b in zip(through, baseline, strict=True)),
        "ratio": statistics.median(a / b for a, b in zip(through, baseline, strict=True)),
        "errors": len(errors),
    }


async def paired(
    http: httpx.AsyncClient,
    direct: httpx.AsyncClient,
    peers: dict[str, str],
    pid: int,
    turns: int,
) -> tuple[list[float], list[float], float]:
    """``turns`` search turns through the service, each followed by the same work done
    directly (interleaved, so a burst of load from elsewhere hits both sides alike): the
    latencies of each side in ms and the service's CPU over its search turns in ms."""
    through: list[float] = []
    baseline: list[float] = []
    search_cpu = 0.0
    for _ in range(turns):
        cpu, started = process_cpu(pid) * 1000, time.perf_counter()
        await search_turn(http)
        through.append((time.perf_counter() - started) * 1000)
        search_cpu += process_cpu(pid) * 1000 - cpu
        started = time.perf_counter()
        await direct_turn(direct, peers["model"], peers["provider"])
        baseline.append((time.perf_counter() - started) * 1000)
    return through, baseline, search_cpu


async def search_only(
    services: list[tuple[str, int]],
    peers: dict[str, str],
    turns: int,
    warm_up: int,
    stream: bool = False,
) -> list[dict[str, float]]:
    """``turns`` rounds after ``warm_up`` of them: a sequential search turn through each
    service (``(base_url, pid)``; the first to go swaps every round), then the same work done
    directly. For each service: medians, the median added time and its CPU per search turn."""
    async with contextlib.AsyncExitStack() as stack:
        https = [
            await stack.enter_async_context(client(TOKEN, base_url=base)) for base, _ in services
        ]
        direct = await stack.enter_async_context(client())
        for _ in range(warm_up):
            for http in https:
                await search_turn(http, stream)
            await direct_turn(direct, peers["model"], peers["provider"])
        through: list[list[float]] = [[] for _ in services]
        cpu = [0.0 for _ in services]
        baseline: list[float] = []
        for round_ in range(turns):
            order = range(len(services)) if round_ % 2 == 0 else reversed(range(len(services)))
            for i in order:
                pid = services[i][1]
                before, started = process_cpu(pid) * 1000, time.perf_counter()
                await search_turn(https[i], stream)
                through[i].append((time.perf_counter() - started) * 1000)
                cpu[i] += process_cpu(pid) * 1000 - before
            started = time.perf_counter()
            await direct_turn(direct, peers["model"], peers["provider"])
            baseline.append((time.perf_counter() - started) * 1000)
    return [
        {
            "through_ms": statistics.median(each),
            "direct_ms": statistics.median(baseline),
            "added_ms": statistics.median(a - b for a, b in zip(each, baseline, strict=True)),
            "search_cpu": used / turns,
        }
        for each, used in zip(through, cpu, strict=True)
    ]


def run(
    turns: int,
    runs: int,
    search_turns: int = 0,
    warm_up: int = 30,
    against: Path | None = None,
    stream: bool = False,
) -> None:
    with (
        child("bench.service_turns", "--peers") as peers,
        tempfile.TemporaryDirectory() as folder,
        contextlib.ExitStack() as stack,
    ):
        env = {
            "SPYGLASS_LLM__BASE_URL": peers["model"],
            "SPYGLASS_SEARCH__PROVIDERS": "searxng",
            "SPYGLASS_SEARCH__SEARXNG__BASE_URL": peers["provider"],
        }
        sources = [None, against / "src"] if against is not None else [None]
        services = []
        for i, src in enumerate(sources):
            home = Path(folder) / f"home-{i}"
            home.mkdir()
            PolicyFile(Paths(home).policy_file).set(WEB_ACCESS, True)
            services.append(stack.enter_context(ServeProcess(home, env, api_token=TOKEN, src=src)))
        if search_turns:
            pairs = [(each.base_url, each.process.pid) for each in services]
            narrow = [
                asyncio.run(search_only(pairs, peers, search_turns, warm_up, stream))
                for _ in range(runs)
            ]
        else:
            service = services[0]
            figures = [
                asyncio.run(one_run(service.base_url, service.process.pid, peers, turns))
                for _ in range(runs)
            ]
    load = os.getloadavg()
    print(f"load average (1/5/15 min) at the end: {load[0]:.2f} / {load[1]:.2f} / {load[2]:.2f}")
    if search_turns:
        print(f"{search_turns} sequential search turns after {warm_up}, per run:")
        names = ["this tree", str(against)]
        for figures_of_run in narrow:
            for name, each in zip(names, figures_of_run, strict=False):
                print(
                    f"through {each['through_ms']:.2f} ms, direct {each['direct_ms']:.2f} ms, "
                    f"added {each['added_ms']:.2f} ms, service CPU {each['search_cpu']:.2f} ms"
                    + (f"  ({name})" if against is not None else "")
                )
        return
    print(f"| measure | median of {runs} runs | each run |")
    print("|---|---|---|")

    def row(label: str, key: str, unit: str, digits: int) -> None:
        values = [f[key] for f in figures]
        each = ", ".join(f"{v:.{digits}f}" for v in values)
        print(f"| {label} | {statistics.median(values):.{digits}f}{unit} | {each} |")

    row("plain turns/s, one client", "plain_rate", "", 0)
    row("plain turn median latency", "plain_ms", " ms", 2)
    row(f"plain turns/s, {CONCURRENCY} clients at a time", "concurrent_rate", "", 0)
    row(f"the model alone, {CONCURRENCY} requests at a time, per second", "model_rate", "", 0)
    row(f"service CPU busy with {CONCURRENCY} clients at a time", "busy", " %", 0)
    row("service CPU per plain turn, one client", "plain_cpu", " ms", 2)
    row(f"service CPU per plain turn, {CONCURRENCY} at a time", "concurrent_cpu", " ms", 2)
    row("search turn through the service (median)", "through_ms", " ms", 2)
    row("same work directly: model, provider, model (median)", "direct_ms", " ms", 2)
    row("added per search turn (median of differences)", "added_ms", " ms", 2)
    row("median ratio service / direct", "ratio", "x", 2)
    row("service CPU per search turn", "search_cpu", " ms", 2)
    row(f"errors in {CONCURRENCY} concurrent search conversations", "errors", "", 0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--search-only",
        type=int,
        default=0,
        metavar="N",
        help="measure only N sequential search turns (after --warm-up) and the service's CPU",
    )
    parser.add_argument("--warm-up", type=int, default=30, help="turns before --search-only")
    parser.add_argument(
        "--against",
        type=Path,
        metavar="DIR",
        help="with --search-only: also run the service from DIR/src, alternating turn by turn",
    )
    parser.add_argument(
        "--stream",
        action="store_true",
        help="with --search-only: ask for each turn as Server-Sent Events instead of JSON",
    )
    parser.add_argument("--peers", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.peers:
        # The peers' own process: one asyncio loop answering with prebuilt bytes, so that
        # they are not what limits the service's figures.
        asyncio.run(serve(answer))
        return
    if (args.against is not None or args.stream) and not args.search_only:
        parser.error("--against and --stream need --search-only")
    run(
        args.turns,
        args.runs,
        args.search_only,
        args.warm_up,
        args.against,
        args.stream,
    )


if __name__ == "__main__":
    main()
