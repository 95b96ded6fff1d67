"""What a person's own permissions cost per call: the executor with and without an actor
(docs/benchmarks.md, "Accounts").

    PYTHONPATH=src .venv/bin/python bench/accounts_policy.py [N]
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

from spyglass.accounts.roles import Role
from spyglass.paths import Paths
from spyglass.runtime import build_runtime


async def main(count: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        runtime = build_runtime(Paths(Path(folder)))
        runtime.stores.upgrade()
        member = await runtime.accounts.create("bench", Role.MEMBER)
        actor = await runtime.actors.actor(member)
        medians = []
        for label, who in (("owner, no actor", None), ("member, with actor", actor)):
            timings = []
            for _ in range(count):
                started = time.perf_counter()
                outcome = await runtime.executor.ainvoke(
                    "system.health", None, {}, channel="bench", actor=who
                )
                timings.append((time.perf_counter() - started) * 1000)
                assert outcome.ok, outcome
            timings.sort()
            p95 = timings[int(len(timings) * 0.95) - 1]
            medians.append(statistics.median(timings))
            print(f"{label:20} median {medians[-1]:6.2f} ms   p95 {p95:6.2f} ms")
        print(f"member / owner, medians: x{medians[1] / medians[0]:.2f}")
        await runtime.stores.aclose()


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 300))
