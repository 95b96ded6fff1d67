"""Serve processes on one Redis and one PostgreSQL at load while the stores restart and a
process is SIGKILLed: is a search run twice, a conversation misattributed, an approval lost
or a receipt untrue? (Method and what each figure counts: docs/benchmarks.md.)

    PYTHONPATH=src:. .venv/bin/python -m bench.disruptions [--processes 4] [--concurrency 200]
        [--seconds 20] [--down-seconds 5] [--disruptions redis,postgres,kill] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from tests.support.fake_model import FakeModel
from tests.support.searxng import SearXNGShaped
from tests.support.serve_process import ServeProcess
from tests.support.state_servers import PostgresServer, RedisServer

from bench.measure import client
from bench.state_stores import MESSAGE, TOKEN, backend_env, brain

TARGETS = ("searched_twice", "receipts_disagreeing", "approvals_lost", "wrong_person")
DISRUPTIONS = ("redis", "postgres", "kill")


@dataclass
class Load:
    """The processes the workers spread requests over, and what the workers saw."""

    processes: list[ServeProcess]
    retry_seconds: float
    stop: bool = False
    codes: Counter[str] = field(default_factory=Counter)  # answers that were not a card or ok
    failures: list[tuple[float, str]] = field(default_factory=list)  # when each came, what
    conversations: list[dict[str, Any]] = field(default_factory=list)

    async def post(
        self, http: httpx.AsyncClient, number: int, body: dict[str, Any]
    ) -> tuple[str, dict[str, Any]]:
        """``body`` to process ``number`` (modulo; a refused connection tries the next): what
        it came to (``ok``, ``card``, or a status and code) and the answer."""
        answer, end = dict[str, Any](), "no answer"
        for index in range(number, number + len(self.processes)):
            try:
                url = self.processes[index % len(self.processes)].base_url + MESSAGE
                response = await http.post(url, json=body)
                answer, end = response.json(), str(response.status_code)
                break
            except httpx.ConnectError:  # nothing was sent
                self.codes["connection refused"] += 1
            except httpx.HTTPError as error:  # sent, maybe acted on, but no answer
                end = f"no answer ({type(error).__name__})"
                break
        if end == "200":
            search = [i for i in answer["receipt"]["items"] if i["capability"] == "web.search"][-1]
            state = "card" if search["status"] == "pending_confirmation" else search["status"]
            why = f"{search.get('code')} {search.get('reason', '')}".strip()  # reason: expired
            end = state if state in ("ok", "card") else f"200 {state} {why}"
        elif "error" in answer:
            end += " " + answer["error"]["code"]
        if end not in ("ok", "card"):
            self.codes[end] += 1
            self.failures.append((time.monotonic(), end))
        return end, answer


async def conversation(load: Load, http: httpx.AsyncClient, name: str, number: int) -> bool:
    """One conversation: a message to process ``number``, its approval to the next."""
    query = f"{name}-{number}"
    end, answer = await load.post(http, number, {"text": query})
    record: dict[str, Any] = {"query": query, "end": end}
    load.conversations.append(record)
    if end != "card":
        return False
    approval = {"token": answer["pending_confirmation"]["token"], "approve": True}
    body = {"conversation_id": answer["conversation_id"], "confirmation": approval}
    deadline = time.monotonic() + load.retry_seconds
    while True:
        number += 1  # the next process; a dead one's turn is carried on by another
        end, answer = await load.post(http, number, body)
        busy = end == "400 INVALID_CONFIRMATION" and "being answered" in str(answer)
        if (
            not (busy or end.startswith(("no answer", "503 STORE_UNAVAILABLE")))
            or time.monotonic() > deadline
        ):
            break
        await asyncio.sleep(1.0 if busy else 0.2)
    interrupted = "INTERRUPTED" in end  # the process died while the call ran
    refused = end.startswith(("200", "400", "card")) and not end.endswith("expired")  # unheeded
    record.update(end=end, interrupted=interrupted, refused=refused)
    if end == "ok" or interrupted:
        record.update(left=answer["receipt"]["left_device"], at=time.monotonic(), refused=False)
    return "at" in record


async def worker(load: Load, name: str, http: httpx.AsyncClient, first: int, step: int) -> None:
    number = first
    while not load.stop:
        if not await conversation(load, http, name, number):
            await asyncio.sleep(0.2)  # as a person would wait a moment before trying again
        number += step


async def disrupt(
    kind: str, load: Load, redis: RedisServer, postgres: PostgresServer, down: float, start: Any
) -> dict[str, Any]:
    began, victim = time.monotonic(), load.processes[-1]
    stop = {"redis": lambda: redis.stop(graceful=True), "postgres": postgres.stop}
    await asyncio.to_thread(stop.get(kind, victim.kill))
    await asyncio.sleep(down)
    if kind == "kill":
        load.processes[-1] = await asyncio.to_thread(start, len(load.processes) - 1)
        await asyncio.to_thread(victim.stop)
    else:
        await asyncio.to_thread(redis.start if kind == "redis" else postgres.start)
    back = probe = time.monotonic()
    async with client() as http:  # rounds of health checks until one answers 200 everywhere
        while probe < back + 120:
            probe = time.monotonic()
            with contextlib.suppress(httpx.HTTPError):
                asked = [http.get(p.base_url + "/api/v1/health") for p in load.processes]
                if all(h.status_code == 200 for h in await asyncio.gather(*asked)):
                    break
            await asyncio.sleep(0.05)  # polling for recovery, which is what is timed
    return {"disruption": kind, "began": began, "down_s": back - began,
            "healthy_s": probe - back, "probe_s": time.monotonic() - probe}  # fmt: skip


async def people(base: str) -> dict[str, str]:
    """The owner's API token and a new member's, by name (no daily limit)."""
    async with client(TOKEN, 1) as http:
        added = (await http.post(base + "/api/v1/people", json={"name": "member"})).json()
        path = f"{base}/api/v1/people/{added['id']}"
        await http.patch(path, json={"no_daily_limit": True})
        member = (await http.post(path + "/api-token")).json()["api_token"]
    return {"owner": TOKEN, "member": member}


async def check(load: Load, queries: list[str], clients: dict[str, Any]) -> dict[str, int]:
    """The targets' counts, from the provider's own count and what the service says."""
    base, counts = load.processes[0].base_url, Counter(queries)
    said: dict[str, set[bool]] = {}
    wrong = set()
    receipts = (await clients["owner"].get(base + "/api/v1/receipts?days=1")).json()
    for receipt in receipts["receipts"]:  # the owner sees everyone's, each with its person
        for item in receipt["receipt"]["items"]:
            if item.get("code") != "INTERRUPTED":  # "may have been sent" is true either way
                said.setdefault(item["target"], set()).add(item["left"])
            if not item["target"].startswith(receipt["person"] + "-"):
                wrong.add(item["target"])
    for name, http in clients.items():  # each person's own list, the owner's too
        listed = (await http.get(base + "/api/v1/conversations")).json()["conversations"]
        wrong |= {c["title"] for c in listed if not c["title"].startswith(name + "-")}
    answered = [c for c in load.conversations if "left" in c and not c["interrupted"]]
    disagreeing = {q for q, left in said.items() if left != {counts[q] > 0}}
    disagreeing |= {c["query"] for c in answered if c["left"] != (counts[c["query"]] > 0)}
    lost = [c for c in load.conversations if c.get("refused") and not counts[c["query"]]]
    twice = sum(n > 1 for n in counts.values())
    return dict(zip(TARGETS, (twice, len(disagreeing), len(lost), len(wrong)), strict=True))


async def run(args: argparse.Namespace) -> dict[str, Any]:
    redis, postgres = RedisServer(appendonly=args.redis_persistence == "yes"), PostgresServer()
    with (
        contextlib.closing(redis),
        contextlib.closing(postgres),
        FakeModel(default=brain) as model,
        SearXNGShaped() as provider,
        tempfile.TemporaryDirectory() as folder,
        contextlib.ExitStack() as stack,
    ):
        homes, env = backend_env("shared", args.processes, Path(folder), postgres, redis)
        env |= {
            "SPYGLASS_LLM__BASE_URL": model.base_url,
            "SPYGLASS_LLM__MODEL": "fake",
            "SPYGLASS_SEARCH__PROVIDERS": "searxng",
            "SPYGLASS_SEARCH__SEARXNG__BASE_URL": provider.base_url,
            "SPYGLASS_STATE__LEASE_SECONDS": str(args.lease_seconds),
        }

        def start(index: int) -> ServeProcess:
            return stack.enter_context(ServeProcess(homes[index], env, api_token=TOKEN))

        load = Load([start(i) for i in range(args.processes)], args.retry_seconds)
        tokens = await people(load.processes[0].base_url)
        room = args.concurrency * args.processes  # a connection for each worker at each process
        clients = {name: client(token, room) for name, token in tokens.items()}
        pairs, began = list(clients.items()), time.monotonic()
        jobs = [worker(load, *pairs[n % 2], n, args.concurrency) for n in range(args.concurrency)]
        workers = [asyncio.create_task(job) for job in jobs]
        await asyncio.sleep(args.seconds)
        disturbed, disruptions = time.monotonic(), []
        for kind in args.disruptions:
            disruptions.append(await disrupt(kind, load, redis, postgres, args.down_seconds, start))
            await asyncio.sleep(args.seconds)
        load.stop, ended = True, time.monotonic()
        await asyncio.gather(*workers)
        figures = await check(load, list(provider.queries), clients)
        await asyncio.gather(*(http.aclose() for http in clients.values()))
    done = [c["at"] for c in load.conversations if "at" in c]
    first = min(done, default=began)  # the baseline from its first answer on (warmed up)
    baseline = sum(at < disturbed for at in done) / (disturbed - first)
    during = sum(disturbed <= at < ended for at in done) / (ended - disturbed)
    for each in disruptions:  # what was not ok from its start until the next one's
        back, down = each.pop("began") + each["down_s"], each["down_s"]
        seen = [(t - back, e) for t, e in load.failures if -down <= t - back < args.seconds]
        each.update(not_ok=len(seen), last_error=max([(0.0, ""), *seen]))
    return {
        **{k: getattr(args, k) for k in ("processes", "concurrency", "redis_persistence")},
        "started": len(load.conversations),
        "completed": len(done),
        "per_s_baseline": baseline,
        "per_s_disturbed": during,
        **figures,
        "answers_not_200": dict(load.codes.most_common()),
        "ended_failed": dict(Counter(c["end"] for c in load.conversations if c["end"] != "ok")),
        "disruptions": disruptions,
    }


def table(r: dict[str, Any]) -> str:
    def codes(counts: dict[str, int]) -> str:
        return ", ".join(f"{k}: {v}" for k, v in counts.items()) or "none"

    ratio = r["per_s_disturbed"] / r["per_s_baseline"] if r["per_s_baseline"] else float("nan")
    rows = [
        ("conversations started / completed", f"{r['started']} / {r['completed']}", ""),
        ("completed per second, disturbed / baseline (peer)",
         f"{r['per_s_disturbed']:.1f} / {r['per_s_baseline']:.1f} (×{ratio:.2f})", ""),
        *((k.replace("_", " "), r[k], 0) for k in TARGETS),
        ("answers not a card or a search, by code", codes(r["answers_not_200"]), "no 500"),
        ("conversations that ended so, by code", codes(r["ended_failed"]), ""),
        *((f"{d['disruption']}: back after / healthy after (a check took) / last error after "
           "/ answers not ok", f"{d['down_s']:.1f} s / {d['healthy_s']:.1f} s ({d['probe_s']:.1f}"
           f" s) / {d['last_error'][0]:.1f} s ({d['last_error'][1]}) / {d['not_ok']}", "")
          for d in r["disruptions"]),
    ]  # fmt: skip
    head = f"{r['processes']} processes, {r['concurrency']} conversations at once, Redis "
    head += f"persistence {r['redis_persistence']}\n| figure | value | target |\n|---|---|---|\n"
    return head + "\n".join(f"| {a} | {b} | {c} |" for a, b, c in rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--processes", type=int, default=4, help="at least 2")
    parser.add_argument("--concurrency", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=20, help="baseline; after each")
    parser.add_argument("--down-seconds", type=float, default=5)
    parser.add_argument("--disruptions", default=",".join(DISRUPTIONS))
    parser.add_argument("--redis-persistence", choices=["yes", "no"], default="yes")
    parser.add_argument("--lease-seconds", type=float, default=10, help="state.lease_seconds")
    parser.add_argument("--retry-seconds", type=float, default=60)
    parser.add_argument("--json", action="store_true", help="the figures as JSON")
    args = parser.parse_args()
    args.disruptions = [d for d in args.disruptions.split(",") if d]
    if unknown := set(args.disruptions) - set(DISRUPTIONS):
        parser.error(f"--disruptions: unknown {sorted(unknown)}; choose from redis, postgres, kill")
    if args.processes < 2:
        parser.error("--processes: at least 2, so that a message and its approval can part")
    result = asyncio.run(run(args))
    print(json.dumps(result, indent=2) if args.json else table(result))


if __name__ == "__main__":
    main()
