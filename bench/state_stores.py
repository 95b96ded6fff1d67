"""Embedded against shared state, with 1, 2 and 4 ``spyglass serve`` processes.

Starts a real Redis and PostgreSQL (as the tests do), a SearXNG-shaped loopback provider and
the scripted fake model, then real ``spyglass serve`` processes: for ``embedded`` they share
one ``SPYGLASS_HOME`` (its ``state.db``); for ``shared`` each has its own home and all state
goes through Redis and PostgreSQL. Clients spread requests over the processes in turn, as a
reverse proxy would. Both backends run side by side.

1. approval round trip: ``POST /api/v1/capabilities/web.search/invoke`` (token issued) then
   the same with the token (taken, search runs), one client. The backends take turns, one
   round trip each per round, which goes first swapped every round, so a change of load on
   the machine falls on both alike; per run the median of each and the median of the paired
   differences (shared minus embedded), and the CPU each side's processes spent per round
   trip (``/proc``; for shared its Redis and PostgreSQL servers too); medians of ``--runs``;
2. full search turns with a model that thinks 200 ms per answer: 200 conversations at once
   (message → pending confirmation → approval → search → answer), counting errors, doubled
   searches (the provider sees each query) and lost approvals; turns/s.

``--baseline-src`` adds shared stores running another source tree (its own Redis and
PostgreSQL) to the same alternation: before and after a change, measured in one run.

The processes reach Redis and PostgreSQL through their Unix sockets, as the systemd
deployment on one computer does (``deploy/systemd/spyglass.env``); ``--transport tcp`` goes
through 127.0.0.1 instead, as containers on one network must.

    .venv/bin/python -m bench.state_stores [--samples 100] [--conversations 200] [--runs 3]
    .venv/bin/python -m bench.state_stores --baseline-src /path/to/parent/src
    .venv/bin/python -m bench.state_stores --transport tcp
    .venv/bin/python -m bench.state_stores --stores-only   # the stores alone, in process
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import statistics
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
from tests.support.fake_model import FakeModel, Reply, text, tool_call
from tests.support.searxng import SearXNGShaped
from tests.support.serve_process import ServeProcess
from tests.support.state_servers import PostgresServer, RedisServer

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


def cpu_seconds(roots: list[int]) -> float:
    """User and system CPU of ``roots`` and their descendants, all threads (``/proc``)."""
    ticks = 0
    for pid in {p for root in roots for p in descendants(root)}:
        with contextlib.suppress(OSError, IndexError, ValueError):
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            ticks += int(fields[11]) + int(fields[12])  # utime, stime
    return ticks / os.sysconf("SC_CLK_TCK")


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


async def conversation(cluster: Cluster, number: int) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {TOKEN}"}
    async with httpx.AsyncClient(headers=headers, timeout=120, trust_env=False) as http:
        first = await http.post(cluster.next() + MESSAGE, json={"text": f"conv-{number}"})
        body = first.json()
        pending = body.get("pending_confirmation")
        if pending is None:
            raise RuntimeError(f"no confirmation asked: {first.status_code} {first.text[:300]}")
        done = await http.post(
            cluster.next() + MESSAGE,
            json={
                "conversation_id": body["conversation_id"],
                "confirmation": {"token": pending["token"], "approve": True},
            },
        )
        if done.status_code != 200:
            raise RuntimeError(f"approval failed: {done.status_code} {done.text[:200]}")
        return dict(done.json())


async def concurrent_turns(
    cluster: Cluster, provider: SearXNGShaped, conversations: int
) -> dict[str, Any]:
    """``conversations`` full search turns at once over the cluster's processes."""
    provider.queries.clear()
    started = time.perf_counter()
    results = await asyncio.gather(
        *(conversation(cluster, n) for n in range(conversations)), return_exceptions=True
    )
    elapsed = time.perf_counter() - started
    errors = [r for r in results if isinstance(r, BaseException)]
    finished = [r for r in results if isinstance(r, dict)]
    ok = [r for r in finished if [e["status"] for e in r["events"]] == ["ok"]]
    searched = [q for q in provider.queries if q.startswith("conv-")]
    return {
        "turns_per_s": len(ok) / elapsed,
        "errors": len(errors) + len(finished) - len(ok),
        "doubled": len(searched) - len(set(searched)),
        "lost": conversations - len(set(searched)),
        "first_error": repr(errors[0])[:200] if errors else "",
    }


@contextlib.contextmanager
def started(
    count: int, homes: list[Path], env: dict[str, str], src: Path | None
) -> Iterator[list[ServeProcess]]:
    with contextlib.ExitStack() as stack:
        yield [
            stack.enter_context(ServeProcess(homes[i % len(homes)], env, api_token=TOKEN, src=src))
            for i in range(count)
        ]


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
                        processes = stack.enter_context(
                            started(count, homes, base | env, trees[backend])
                        )
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
                        print(
                            f"{count} process(es), run {number + 1}: "
                            + ", ".join(
                                f"{b} {medians[b][-1]:.2f} ms (CPU {cpus[b][-1]:.2f} ms)"
                                for b in backends
                            )
                            + "; "
                            + ", ".join(f"{b} adds {v[-1]:+.2f} ms" for b, v in added.items())
                            + f" (medians of pairs); load {os.getloadavg()[0]:.1f}",
                            flush=True,
                        )
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


async def store_costs(samples: int) -> None:
    """What the stores alone add to one approval, in process: the token put and taken, the
    paused turn put, claimed and finished — SQLite (embedded) against Redis (shared)."""
    from spyglass.conversation.pending import PausedTurn, PendingTurnStore, TurnState
    from spyglass.core.confirmation import (
        Binding,
        ConfirmationStore,
        PendingRecord,
        canonical_json,
        new_token,
    )
    from spyglass.core.context import Turn
    from spyglass.state import redis as redis_state
    from spyglass.state.sqlite import statefile as sqlite

    server = RedisServer()
    medians = {}
    try:
        with tempfile.TemporaryDirectory() as folder:
            db = sqlite.StateDB(Path(folder) / "state.db", time.time)
            shared = redis_state.RedisState(server.url, timeout=2, clock=time.time)
            backends: dict[str, tuple[ConfirmationStore, PendingTurnStore]] = {
                "embedded (SQLite)": (
                    sqlite.SQLiteConfirmationStore(db),
                    sqlite.SQLitePendingTurnStore(db, 30),
                ),
                "shared (Redis)": (
                    redis_state.RedisConfirmationStore(shared),
                    redis_state.RedisPendingTurnStore(shared, 30),
                ),
            }
            for name, (tokens, turns) in backends.items():
                timings = []
                for number in range(samples + 20):
                    token = new_token()
                    record = PendingRecord(
                        token,
                        Binding("web.search", 1, canonical_json({"query": "q"}), "c"),
                        "i",
                        time.time() + 120,
                    )
                    state = TurnState("c", "t", [{"role": "user", "content": "x" * 2000}], Turn())
                    started = time.perf_counter()
                    await tokens.put(record)
                    await turns.put(PausedTurn(token, state, time.time() + 120))
                    await turns.take(token, "c")
                    await tokens.take(token)
                    await turns.finish(token)
                    if number >= 20:
                        timings.append((time.perf_counter() - started) * 1000)
                medians[name] = statistics.median(timings)
            await shared.aclose()
            db.close()
    finally:
        server.close()
    print("| stores | one approval's store work (median) |")
    print("|---|---|")
    for name, value in medians.items():
        print(f"| {name} | {value:.2f} ms |")


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
    parser.add_argument(
        "--stores-only", action="store_true", help="Only the in-process cost of the stores."
    )
    args = parser.parse_args()
    if args.stores_only:
        asyncio.run(store_costs(args.samples * 10))
        return
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
