"""Peak memory of a fetch whose response is 1 GB, against a plain httpx client, same run.

    .venv/bin/python bench/fetch_memory.py

Each side runs in a fresh process and reports how much its peak resident memory grew
(``ru_maxrss``) while fetching ``/gigabyte`` from a loopback server in a third process:
the guarded fetch stops at the page cap (``fetch.max_page_bytes``, 5 MB by default), the
plain client (``httpx.AsyncClient().get``, as fetch tools commonly do) reads it all.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import subprocess
import sys
import time

from bench._peer import NAME, ROOT, guarded_fetcher, server


def peak_kib() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


async def run_side(side: str, port: int) -> dict[str, object]:
    import httpx

    from spyglass.errors import CapabilityError

    before = peak_kib()
    started = time.perf_counter()
    if side == "ours":
        async with guarded_fetcher(port) as fetcher:
            try:
                await fetcher.fetch(f"http://{NAME}/gigabyte")
                outcome = "read"
            except CapabilityError as exc:
                outcome = exc.code
    else:
        async with httpx.AsyncClient(timeout=120) as client:
            response = await client.get(f"http://127.0.0.1:{port}/gigabyte")
            outcome = f"read {len(response.content):,} bytes"
    return {
        "side": side,
        "outcome": outcome,
        "growth_mb": (peak_kib() - before) / 1024,
        "seconds": time.perf_counter() - started,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--side", choices=["ours", "httpx"], help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.side:
        print(json.dumps(asyncio.run(run_side(options.side, options.port))))
        return
    reports = {}
    with server() as port:
        for side in ("ours", "httpx"):
            done = subprocess.run(
                [sys.executable, "-m", "bench.fetch_memory", "--side", side, "--port", str(port)],
                capture_output=True,
                text=True,
                cwd=ROOT,
                check=True,
            )
            reports[side] = json.loads(done.stdout)
    for report in reports.values():
        print(
            f"{report['side']:<6} peak RSS growth {report['growth_mb']:8.1f} MB "
            f"in {report['seconds']:.1f} s ({report['outcome']})"
        )
    ratio = reports["ours"]["growth_mb"] / max(reports["httpx"]["growth_mb"], 0.001)
    print(f"ours / httpx peak growth: {ratio:.3f}")


if __name__ == "__main__":
    main()
