"""Embedded against shared state, with 1, 2 and 4 ``spyglass serve`` processes: approval
round trips and 200 conversations at once (method: docs/benchmarks.md, "Shared state").

    .venv/bin/python -m bench.state_stores [--samples 100] [--conversations 200] [--runs 3]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from tests.support.fake_model import FakeModel, Reply, text, tool_call
from tests.support.searxng import SearXNGShaped
from tests.support.serve_process import ServeProcess
from tests.support.state_servers import PostgresServer, RedisServer

from bench.measure import client, cpu_seconds
from spyglass.core.policy import WEB_ACCESS, PolicyFile
from spyglass.paths import Paths
from spyglass.state.postgres import PostgresPolicy, upgrade

MESSAGE = "/api/v1/conversation/message"
INVOKE = "/api/v1/capabilities/web.search/invoke"
TOKEN = "bench-api-token-0123456789abcdef0123456789"
THINK_SECONDS = 0.2


def thinking(reply: Reply) -> Reply:
    """``reply`` spread over 200 ms, as a model that takes that long to answer."""
    reply.delay = THINK_SECONDS / max(1, len(reply.deltas))
    return reply


def brain(body: dict[str, Any]) -> Reply:
    last = body["messages"][-1]
    if last["role"] == "tool":
        return thinking(text("Here is the answer.", pieces=1))
    query = str(last.get("content", ""))[:40]
    return thinking(tool_call("web_search", {"query": query}, pieces=1))


class Cluster:
    """Round-robin over processes, as a reverse proxy spreads requests. ``servers``: the
    state servers' processes only this cluster uses (their CPU counts as its own)."""

    def __init__(self, processes: list[ServeProcess], servers: list[int] | None = None) -> None:
        self.processes = processes
        self.turn = 0
        self.pids = [p.process.pid for p in processes] + list(servers or [])

    def next(self) -> str:
        self.turn += 1
        return self.processes[self.turn % len(self.processes)].base_url


async def approval_round_trip(http: httpx.AsyncClient, cluster: Cluster, number: int) -> float:
    """Ms of asking (token issued at one process) plus approving (token taken at the next,
    search runs)."""
    started = time.perf_counter()
    asked = await http.post(cluster.next() + INVOKE, json={"arguments": {"query": f"rt {number}"}})
    token = asked.json()["pending_confirmation"]["token"]
    done = await http.post(
        cluster.next() + INVOKE,
        json={
            "arguments": {"query": f"rt {number}"},
            "confirmation": {"token": token, "approve": True},
        },
    )
    if done.json()["status"] != "ok":
        raise RuntimeError(f"approval failed: {done.text[:300]}")
    return (time.perf_counter() - started) * 1000


async def alternated_round_trips(
    clusters: dict[str, Cluster], samples: int, warm_up: int = 10
) -> tuple[dict[str, list[float]], dict[str, float]]:
    """Approval round trips on every cluster, one each per round and which goes first swapped
    every round, so a change of load on the machine falls on all of them alike; and the CPU
    ms each cluster's processes (and its state servers) spent per round trip."""
    headers = {"Authorization": f"Bearer {TOKEN}"}
    found: dict[str, list[float]] = {name: [] for name in clusters}
    names = list(clusters)
    cpu: dict[str, float] = {}
    async with httpx.AsyncClient(headers=headers, timeout=60, trust_env=False) as http:
        for number in range(warm_up + samples):
            if number == warm_up:  # the first few warm connections and caches
                cpu = {name: cpu_seconds(clusters[name].pids) for name in names}
            for name in names if number % 2 == 0 else names[::-1]:
                taken = await approval_round_trip(http, clusters[name], number)
                if number >= warm_up:
                    found[name].append(taken)
    spent = {
        name: (cpu_seconds(clusters[name].pids) - cpu[name]) * 1000 / samples for name in names
    }
    return found, spent


async def concurrent_turns(
    cluster: Cluster, provider: SearXNGShaped, conversations: int
) -> dict[str, Any]:
    """``conversations`` full search turns at once over the cluster's processes, each with its
    own connection, the message to one process and the approval to the next."""
    from bench.disruptions import Load, conversation

    provider.queries.clear()
    load = Load(cluster.processes, retry_seconds=0)

    async def one(number: int) -> None:
        async with client(TOKEN, 1) as http:
            await conversation(load, http, "conv", number)

    started = time.perf_counter()
    await asyncio.gather(*(one(n) for n in range(conversations)))
    elapsed = time.perf_counter() - started
    ok = sum(c["end"] == "ok" for c in load.conversations)
    searched = [q for q in provider.queries if q.startswith("conv-")]
    return {
        "turns_per_s": ok / elapsed,
        "errors": conversations - ok,
        "doubled": len(searched) - len(set(searched)),
        "lost": conversations - len(set(searched)),
        "first_error": next((c["end"] for c in load.conversations if c["end"] != "ok"), ""),
    }


def backend_env(
    backend: str,
    count: int,
    folder: Path,
    postgres: PostgresServer | None,
    redis: RedisServer | None,
    transport: str = "unix",
) -> tuple[list[Path], dict[str, str]]:
    """The homes of ``count`` processes on ``backend`` and the settings they add; the shared
    backend's servers reached through ``transport`` (``unix`` sockets or ``tcp``)."""
    if backend == "embedded":
        home = folder / f"embedded-{count}"
        PolicyFile(Paths(home).policy_file).set(WEB_ACCESS, True)
        return [home], {}
    assert postgres is not None and redis is not None
    url = postgres.new_database()
    upgrade(url, 5)
    policy = PostgresPolicy(url, timeout=5)
    policy.set(WEB_ACCESS, True)
    policy.close()
    homes = [folder / f"shared-{count}-{i}" for i in range(count)]
    unix = transport == "unix"
    return homes, {
        "SPYGLASS_STATE__BACKEND": "shared",
        "SPYGLASS_STATE__REDIS_URL": redis.unix_url if unix else redis.url,
        "SPYGLASS_STATE__DATABASE_URL": postgres.unix_url(url) if unix else url,
    }


async def run(
    samples: int,
    conversations: int,
    counts: list[int],
    runs: int,
    src: Path | None,
    baseline: Path | None,
    transport: str = "unix",
) -> None:
    # Each shared cluster has its own Redis and PostgreSQL, so their CPU is its own.
    trees: dict[str, Path | None] = {"embedded": src, "shared": src}
    if baseline is not None:
        trees["shared (baseline)"] = baseline
    servers = {
        name: (RedisServer(), PostgresServer()) for name in trees if name.startswith("shared")
    }
    rows = []
    backends = list(trees)
    try:
        with (
            FakeModel(default=brain) as model,
            SearXNGShaped() as provider,
            tempfile.TemporaryDirectory() as folder,
        ):
            base = {
                "SPYGLASS_LLM__BASE_URL": model.base_url,
                "SPYGLASS_LLM__MODEL": "fake",
                "SPYGLASS_SEARCH__PROVIDERS": "searxng",
                "SPYGLASS_SEARCH__SEARXNG__BASE_URL": provider.base_url,
            }
            for count in counts:
                with contextlib.ExitStack() as stack:
                    clusters = {}
                    for number, backend in enumerate(backends):
                        pids: list[int] = []
                        if backend == "embedded":
                            homes, env = backend_env("embedded", count, Path(folder), None, None)
                        else:
                            redis, postgres = servers[backend]
                            assert redis.process is not None and postgres.process is not None
                            pids = [redis.process.pid, postgres.process.pid]
                            where = Path(folder) / str(number)
                            homes, env = backend_env(
                                "shared", count, where, postgres, redis, transport
                            )
                        settings, src = base | env, trees[backend]
                        processes: list[ServeProcess] = []
                        for home in [homes[i % len(homes)] for i in range(count)]:
                            serving = ServeProcess(home, settings, api_token=TOKEN, src=src)
                            processes.append(stack.enter_context(serving))
                        clusters[backend] = Cluster(processes, pids)
                    medians: dict[str, list[float]] = {b: [] for b in backends}
                    cpus: dict[str, list[float]] = {b: [] for b in backends}
                    added: dict[str, list[float]] = {b: [] for b in backends[1:]}
                    for number in range(runs):
                        found, cpu = await alternated_round_trips(clusters, samples)
                        for backend in backends:
                            medians[backend].append(statistics.median(found[backend]))
                            cpus[backend].append(cpu[backend])
                        for backend in added:
                            pairs = zip(found[backend], found["embedded"], strict=True)
                            added[backend].append(statistics.median(s - e for s, e in pairs))
                        each = [
                            f"{b} {medians[b][-1]:.2f} ms (CPU {cpus[b][-1]:.2f})" for b in backends
                        ]
                        each += [f"{b} adds {v[-1]:+.2f} ms" for b, v in added.items()]
                        load = os.getloadavg()[0]
                        print(f"{count} process(es), run {number + 1}: {each}; load {load:.1f}")
                    for backend in backends:
                        turns = await concurrent_turns(clusters[backend], provider, conversations)
                        result = {
                            "round_trip_ms": statistics.median(medians[backend]),
                            "runs_ms": medians[backend],
                            "cpu_ms": statistics.median(cpus[backend]),
                            **turns,
                        }
                        if backend in added:
                            result["added_ms"] = statistics.median(added[backend])
                            result["added_runs_ms"] = added[backend]
                        rows.append((backend, count, result))
                        print(backend, count, result, flush=True)
    finally:
        for redis, postgres in servers.values():
            redis.close()
            postgres.close()
    print()
    print(f"Shared stores reached through {'Unix sockets' if transport == 'unix' else 'TCP'}.")
    print(
        f"| stores | processes | approval round trip (median of {runs} run medians) | adds "
        "over embedded (median of pairs, median of runs) | CPU per round trip (with its "
        f"Redis and PostgreSQL) | {conversations} search turns at once: turns/s | errors | "
        "doubled | lost |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for backend, count, r in rows:
        added_cell = f"{r['added_ms']:+.2f} ms" if "added_ms" in r else ""
        print(
            f"| {backend} | {count} | {r['round_trip_ms']:.2f} ms | {added_cell} | "
            f"{r['cpu_ms']:.2f} ms | {r['turns_per_s']:.1f} | {r['errors']} | {r['doubled']} | "
            f"{r['lost']} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--samples", type=int, default=100)
    parser.add_argument("--conversations", type=int, default=200)
    parser.add_argument("--processes", default="1,2,4")
    parser.add_argument(
        "--runs", type=int, default=3, help="Round-trip runs per process count (median of them)."
    )
    parser.add_argument(
        "--src",
        type=Path,
        default=None,
        help="The source tree the served processes run (default: this checkout's src).",
    )
    parser.add_argument(
        "--baseline-src",
        type=Path,
        default=None,
        help="Also run shared stores from this source tree (e.g. the parent commit's src), "
        "alternated with the others: before and after in the same run.",
    )
    parser.add_argument(
        "--transport",
        choices=["unix", "tcp"],
        default="unix",
        help="How the processes reach Redis and PostgreSQL: their Unix sockets (one computer, "
        "as the systemd deployment) or 127.0.0.1 (as containers on one network).",
    )
    args = parser.parse_args()
    counts = [int(c) for c in args.processes.split(",")]
    asyncio.run(
        run(
            args.samples,
            args.conversations,
            counts,
            args.runs,
            args.src,
            args.baseline_src,
            args.transport,
        )
    )


if __name__ == "__main__":
    main()
