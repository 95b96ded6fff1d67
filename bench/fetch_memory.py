"""Peak memory of a fetch whose response is 1 GB, against a plain httpx client, same run.

    .venv/bin/python bench/fetch_memory.py
    .venv/bin/python -m bench.fetch_memory --cli    # root: a private network namespace

Method: docs/benchmarks.md, "Memory under an endless response" and "Pages at the size cap".
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench._peer import NAME, PUBLIC, ROOT, guarded_fetcher, server
from bench.crafted_pages import CAP_CASES

PATHS = ["/page", "/gigabyte", *(f"/cap/{case.replace(' ', '-')}" for case in CAP_CASES)]


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


def fetch_peaks(spyglass: str, paths: list[str]) -> list[dict[str, object]]:
    """In the namespace: serve on the public address, run ``spyglass fetch`` on each page."""
    found: list[dict[str, object]] = []
    with server("--bind", PUBLIC, "80"):
        for path in paths:
            started = time.perf_counter()
            command = [spyglass, "fetch", f"http://{NAME}{path}", "--yes"]
            child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            _, status, usage = os.wait4(child.pid, 0)
            child.returncode = os.waitstatus_to_exitcode(status)
            took = time.perf_counter() - started
            found.append(
                {"path": path, "mb": usage.ru_maxrss / 1024, "s": took, "exit": child.returncode}
            )
    return found


def cli_peaks(paths: list[str] = PATHS) -> None:
    from tests.support import netns

    why = netns.unavailable()
    if why is not None:
        print(f"spyglass fetch not measured: {why}")
        return
    spyglass = str(Path(sys.executable).parent / "spyglass")
    with tempfile.TemporaryDirectory() as folder:
        env = {"SPYGLASS_HOME": folder}
        enable = [spyglass, "policy", "enable"]
        subprocess.run(enable, env={**os.environ, **env}, capture_output=True, check=True)
        hosts = f"127.0.0.1 localhost\n{PUBLIC} {NAME}\n"
        inside = [sys.executable, "-m", "bench.fetch_memory", "--inside", spyglass, *paths]
        shown = netns.run(Path(folder), hosts, [PUBLIC], inside, env, timeout=900)
    for row in json.loads(shown):
        print(
            f"spyglass fetch {row['path']:<28} peak RSS {row['mb']:7.1f} MB "
            f"in {row['s']:5.1f} s (exit {row['exit']})"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--side", choices=["ours", "httpx"], help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--cli", action="store_true", help="peak RSS of spyglass fetch instead")
    parser.add_argument("--inside", nargs="+", help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.inside:
        print(json.dumps(fetch_peaks(options.inside[0], options.inside[1:])))
        return
    if options.cli:
        cli_peaks()
        return
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
