"""Embedded against shared state, with 1, 2 and 4 ``spyglass serve`` processes.

Starts a real Redis and PostgreSQL (as the tests do), a SearXNG-shaped loopback provider and
the scripted fake model, then real ``spyglass serve`` processes: for ``embedded`` they share
one ``SPYGLASS_HOME`` (its ``state.db``); for ``shared`` each has its own home and all state
goes through Redis and PostgreSQL. Clients spread requests over the processes in turn, as a
reverse proxy would.

1. approval round trip: ``POST /api/v1/capabilities/web.search/invoke`` (token issued) then
   the same with the token (taken, search runs), one client, median;
2. full search turns with a model that thinks 200 ms per answer: 200 conversations at once
   (message → pending confirmation → approval → search → answer), counting errors, doubled
   searches (the provider sees each query) and lost approvals; turns/s.

    .venv/bin/python -m bench.state_stores [--samples 100] [--conversations 200]
    .venv/bin/python -m bench.state_stores --stores-only   # the stores alone, in process
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
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


class Cluster:
    """Round-robin over processes, as a reverse proxy spreads requests."""

    def __init__(self, processes: list[ServeProcess]) -> None:
        self.processes = processes
        self.turn = 0

    def next(self) -> str:
        self.turn += 1
        return self.processes[self.turn % len(self.processes)].base_url


async def approval_round_trip(http: httpx.AsyncClient, cluster: Cluster, n: int) -> float:
    """Median ms of asking (token issued) plus approving (token taken, search runs)."""
    samples = []
    for number in range(n + 5):
        started = time.perf_counter()
        asked = await http.post(
            cluster.next() + INVOKE, json={"arguments": {"query": f"rt {number}"}}
        )
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
        if number >= 5:  # the first few warm connections and caches
            samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples)


async def conversation(cluster: Cluster, number: int) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {TOKEN}"}
    async with httpx.AsyncClient(headers=headers, timeout=120, trust_env=False) as http:
        first = await http.post(cluster.next() + MESSAGE, json={"text": f"conv-{number}"})
        body = first.json()
        pending = body["pending_confirmation"]
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


async def measure(
    processes: list[ServeProcess], provider: SearXNGShaped, samples: int, conversations: int
) -> dict[str, Any]:
    cluster = Cluster(processes)
    headers = {"Authorization": f"Bearer {TOKEN}"}
    async with httpx.AsyncClient(headers=headers, timeout=60, trust_env=False) as http:
        round_trip = await approval_round_trip(http, cluster, samples)
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
        "round_trip_ms": round_trip,
        "turns_per_s": len(ok) / elapsed,
        "errors": len(errors) + len(finished) - len(ok),
        "doubled": len(searched) - len(set(searched)),
        "lost": conversations - len(set(searched)),
        "first_error": repr(errors[0])[:200] if errors else "",
    }


@contextlib.contextmanager
def started(count: int, homes: list[Path], env: dict[str, str]) -> Iterator[list[ServeProcess]]:
    with contextlib.ExitStack() as stack:
        yield [
            stack.enter_context(ServeProcess(homes[i % len(homes)], env, api_token=TOKEN))
            for i in range(count)
        ]


async def run(samples: int, conversations: int, counts: list[int]) -> None:
    redis = RedisServer()
    postgres = PostgresServer()
    rows = []
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
            for backend in ("embedded", "shared"):
                for count in counts:
                    env = dict(base)
                    if backend == "embedded":
                        homes = [Path(folder) / f"embedded-{count}"]
                        PolicyFile(Paths(homes[0]).policy_file).set(WEB_ACCESS, True)
                    else:
                        url = postgres.new_database()
                        upgrade(url, 5)
                        policy = PostgresPolicy(url, timeout=5)
                        policy.set(WEB_ACCESS, True)
                        policy.close()
                        homes = [Path(folder) / f"shared-{count}-{i}" for i in range(count)]
                        env |= {
                            "SPYGLASS_STATE__BACKEND": "shared",
                            "SPYGLASS_STATE__REDIS_URL": redis.url,
                            "SPYGLASS_STATE__DATABASE_URL": url,
                        }
                    with started(count, homes, env) as processes:
                        result = await measure(processes, provider, samples, conversations)
                    rows.append((backend, count, result))
                    print(backend, count, result, flush=True)
    finally:
        redis.close()
        postgres.close()
    print()
    print(
        f"| stores | processes | approval round trip (median) | {conversations} search "
        "turns at once: turns/s | errors | doubled | lost |"
    )
    print("|---|---|---|---|---|---|---|")
    for backend, count, r in rows:
        print(
            f"| {backend} | {count} | {r['round_trip_ms']:.2f} ms | {r['turns_per_s']:.1f} | "
            f"{r['errors']} | {r['doubled']} | {r['lost']} |"
        )
    embedded = {c: r["round_trip_ms"] for b, c, r in rows if b == "embedded"}
    for backend, count, r in rows:
        if backend == "shared":
            added = r["round_trip_ms"] - embedded[count]
            print(f"shared adds {added:+.2f} ms per approval round trip with {count} process(es)")


async def store_costs(samples: int) -> None:
    """What the stores alone add to one approval, in process: the token put and taken, the
    paused turn put, claimed and finished — SQLite (embedded) against Redis (shared)."""
    from spyglass.conversation.pending import PausedTurn, TurnState
    from spyglass.core.confirmation import Binding, PendingRecord, canonical_json, new_token
    from spyglass.core.context import Turn
    from spyglass.state import redis as redis_state
    from spyglass.state import sqlite

    server = RedisServer()
    medians = {}
    try:
        with tempfile.TemporaryDirectory() as folder:
            db = sqlite.StateDB(Path(folder) / "state.db", time.time)
            shared = redis_state.RedisState(server.url, timeout=2, clock=time.time)
            backends = {
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
        "--stores-only", action="store_true", help="Only the in-process cost of the stores."
    )
    args = parser.parse_args()
    if args.stores_only:
        asyncio.run(store_costs(args.samples * 10))
        return
    counts = [int(c) for c in args.processes.split(",")]
    asyncio.run(run(args.samples, args.conversations, counts))


if __name__ == "__main__":
    main()
