"""CPU per trip to a worker thread: `asyncio.to_thread` against `core.workers.WorkerThreads`
(docs/benchmarks.md, "Store hand-offs and outbound requests").

    PYTHONPATH=src:. .venv/bin/python -m bench.handoff [--calls 20000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics

from bench.measure import cpu_per_call
from spyglass.core.workers import WorkerThreads


def work(value: int) -> int:
    return value + 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    import uvloop

    runners = {"uvloop": uvloop.run, "asyncio": asyncio.run}
    figures: dict[tuple[str, str], list[float]] = {}
    for _ in range(args.rounds):
        for loop, run in runners.items():
            workers = WorkerThreads("bench")

            async def to_thread() -> int:
                return await asyncio.to_thread(work, 1)

            async def on_workers(workers: WorkerThreads = workers) -> int:
                return await workers.run(work, 1)

            for name, trip in (("asyncio.to_thread", to_thread), ("WorkerThreads.run", on_workers)):
                # 500 trips first: threads started, caches warm.
                figures.setdefault((loop, name), []).append(
                    run(cpu_per_call(args.calls, trip, 500))
                )
    print("| loop | hand-off | CPU per trip (median of rounds) | each round |")
    print("|---|---|---|---|")
    for (loop, name), values in figures.items():
        each = ", ".join(f"{v:.1f}" for v in values)
        print(f"| {loop} | `{name}` | {statistics.median(values):.1f} µs | {each} |")


if __name__ == "__main__":
    main()
