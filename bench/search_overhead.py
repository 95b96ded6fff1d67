"""What ``web.search`` adds on top of talking to SearXNG yourself, and its concurrent rate.

    SPYGLASS_TEST_SEARXNG_PYTHON=.venv-searxng/bin/python \\
        .venv/bin/python bench/search_overhead.py [--rounds N] [--concurrency C] [--json]

Method: docs/benchmarks.md, "web.search".
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.search.searxng_peer import PYTHON_VARIABLE, FakeUpstream, start_peer  # noqa: E402

from spyglass.core.policy import WEB_ACCESS  # noqa: E402
from spyglass.paths import Paths  # noqa: E402
from spyglass.providers.exchange import USER_AGENT  # noqa: E402
from spyglass.runtime import Runtime, build_runtime  # noqa: E402

QUERY = "!ok spyglass benchmark"
HEADERS = {
    "User-Agent": USER_AGENT,
    "Accept": "application/json, text/html;q=0.9, */*;q=0.8",
    "Accept-Encoding": "gzip, deflate",
    "Accept-Language": "en-US,en;q=0.8",
}


_CONTEXT = httpx.create_ssl_context()


def _params() -> dict[str, str]:
    return {"q": QUERY, "format": "json", "locale": "en", "pageno": "1"}


async def _executor_call(runtime: Runtime) -> int:
    outcome = await runtime.executor.ainvoke(
        "web.search", 1, {"query": QUERY, "count": 3}, channel="mcp"
    )
    if not outcome.ok or outcome.result is None:
        raise RuntimeError(f"web.search failed: {outcome.to_json()}")
    return int(outcome.result["result_count"])


async def _direct_fresh(url: str) -> int:
    async with httpx.AsyncClient(trust_env=False, timeout=10, verify=_CONTEXT) as client:
        response = await client.get(f"{url}/search", params=_params(), headers=HEADERS)
        return len(response.json()["results"])


async def _direct_pooled(client: httpx.AsyncClient, url: str) -> int:
    response = await client.get(f"{url}/search", params=_params(), headers=HEADERS)
    return len(response.json()["results"])


async def _timed(call: Any) -> float:
    started = time.perf_counter()
    await call
    return (time.perf_counter() - started) * 1000


async def _latency(runtime: Runtime, url: str, rounds: int) -> dict[str, list[float]]:
    samples: dict[str, list[float]] = {"executor": [], "fresh": [], "pooled": []}
    async with httpx.AsyncClient(trust_env=False, timeout=10) as pooled:
        for _ in range(5):  # warm-up: connection setup, caches, first audit write
            await _executor_call(runtime)
            await _direct_fresh(url)
            await _direct_pooled(pooled, url)
        for _ in range(rounds):
            samples["executor"].append(await _timed(_executor_call(runtime)))
            samples["pooled"].append(await _timed(_direct_pooled(pooled, url)))
            samples["fresh"].append(await _timed(_direct_fresh(url)))
    return samples


async def _throughput(runtime: Runtime, total: int, concurrency: int) -> dict[str, float]:
    gate = asyncio.Semaphore(concurrency)

    async def one() -> int:
        async with gate:
            return await _executor_call(runtime)

    started = time.perf_counter()
    counts = await asyncio.gather(*(one() for _ in range(total)))
    elapsed = time.perf_counter() - started
    return {
        "searches": total,
        "seconds": round(elapsed, 3),
        "searches_per_second": round(total / elapsed, 1),
        "results_per_second": round(sum(counts) / elapsed, 1),
    }


def _summary(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {
        "median_ms": round(statistics.median(ordered), 2),
        "p95_ms": round(ordered[int(len(ordered) * 0.95) - 1], 2),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--json", action="store_true")
    options = parser.parse_args()
    python = os.environ.get(PYTHON_VARIABLE) or str(ROOT / ".venv-searxng" / "bin" / "python")
    if not Path(python).exists():
        sys.exit(f"no SearXNG peer: set {PYTHON_VARIABLE} or run `python3 scripts/dev.py test`")

    upstream = FakeUpstream()
    # A generous engine timeout: under 16 concurrent searches the peer itself queues.
    peer = start_peer(python, upstream.url, engine_timeout=8.0)
    try:
        with tempfile.TemporaryDirectory(prefix="spyglass-bench-") as home:
            runtime = build_runtime(
                Paths(Path(home)),
                overrides={
                    "search.providers": "searxng",
                    "search.searxng.base_url": peer.url,
                    "channels.mcp.confirmation": "delegated",
                },
            )
            runtime.policy.set(WEB_ACCESS, True)
            samples = asyncio.run(_latency(runtime, peer.url, options.rounds))
            rate = asyncio.run(_throughput(runtime, options.rounds, options.concurrency))
    finally:
        peer.stop()
        upstream.stop()

    executor, fresh, pooled = (_summary(samples[name]) for name in ("executor", "fresh", "pooled"))
    report = {
        "rounds": options.rounds,
        "executor": executor,
        "direct_fresh_client": fresh,
        "direct_pooled_client": pooled,
        "median_ratio_vs_pooled": round(executor["median_ms"] / pooled["median_ms"], 3),
        "median_ratio_vs_fresh": round(executor["median_ms"] / fresh["median_ms"], 3),
        "concurrency": options.concurrency,
        "throughput": rate,
    }
    if options.json:
        print(json.dumps(report, indent=2))
    else:
        print(f"rounds: {options.rounds} (interleaved), peer: real SearXNG on loopback")
        for label, values in (
            ("web.search via executor", executor),
            ("direct httpx, pooled client", pooled),
            ("direct httpx, fresh client", fresh),
        ):
            print(
                f"  {label:30} median {values['median_ms']:7.2f} ms  p95 {values['p95_ms']:7.2f} ms"
            )
        print(f"  median ratio executor / pooled client: {report['median_ratio_vs_pooled']}")
        print(f"  median ratio executor / fresh client:  {report['median_ratio_vs_fresh']}")
        print(
            f"  {options.concurrency} concurrent: {rate['searches_per_second']} searches/s, "
            f"{rate['results_per_second']} results/s ({rate['searches']} searches)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
