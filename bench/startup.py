"""How long a person or an MCP host waits for Spyglass to start, as whole processes.

    .venv/bin/python -m bench.startup [--runs 7]
    .venv/bin/python -m bench.startup --callgrind

Method: docs/benchmarks.md, "Start-up".
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

import spyglass
from spyglass.core.policy import WEB_ACCESS, PolicyFile
from spyglass.paths import Paths

SPYGLASS = str(Path(sys.executable).with_name("spyglass"))

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "bench", "version": "0"},
    },
}


def _environment(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SPYGLASS_")}
    env["SPYGLASS_HOME"] = str(home)
    return env


Sample = tuple[float, float]  # (wall seconds, CPU seconds of the child)


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


#: Prefixed to a command to count its instructions instead of timing it (``--callgrind``).
CALLGRIND = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"]


def _command(argv: list[str], env: dict[str, str]) -> Callable[[list[str]], Sample]:
    def once(prefix: list[str]) -> Sample:
        cpu = _children_cpu()
        started = time.perf_counter()
        process = subprocess.Popen(
            [*prefix, *argv],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        # A blocking wait, with the deadline kept by a timer: ``wait(timeout=...)`` polls
        # with sleeps of up to 50 ms, which rounded every figure to that step.
        deadline = threading.Timer(120, process.kill)
        deadline.start()
        try:
            process.wait()
        finally:
            deadline.cancel()
        return time.perf_counter() - started, _children_cpu() - cpu

    return once


def _first_tools_list(env: dict[str, str]) -> Callable[[list[str]], Sample]:
    """Spawn ``spyglass mcp``, send the handshake and tools/list at once, time the answer."""
    lines = [
        INITIALIZE,
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]
    payload = "".join(json.dumps(line) + "\n" for line in lines)

    def once(prefix: list[str]) -> Sample:
        cpu = _children_cpu()
        started = time.perf_counter()
        process = subprocess.Popen(
            [*prefix, SPYGLASS, "mcp"],
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(payload)
        process.stdin.flush()
        for line in process.stdout:
            if json.loads(line).get("id") == 2:
                break
        elapsed = time.perf_counter() - started
        process.stdin.close()
        process.wait(timeout=60)
        process.stdout.close()
        # The CPU figure also counts the server's shutdown after the answer (a few ms).
        return elapsed, _children_cpu() - cpu

    return once


def _instructions(once: Callable[[list[str]], Sample]) -> int:
    """Instructions one run of ``once`` executes, counted by callgrind."""
    with tempfile.NamedTemporaryFile("r", prefix="spyglass-callgrind-") as log:
        once([*CALLGRIND, f"--log-file={log.name}"])
        found = re.search(r"Collected : (\d+)", log.read())
    if found is None:
        raise SystemExit("callgrind reported no instruction count; is valgrind installed?")
    return int(found.group(1))


def main(runs: int, callgrind: bool = False) -> None:
    compileall.compile_dir(Path(spyglass.__file__).parent, quiet=1)
    home_off = Path(tempfile.mkdtemp(prefix="spyglass-bench-"))
    home_on = Path(tempfile.mkdtemp(prefix="spyglass-bench-"))
    home_set = Path(tempfile.mkdtemp(prefix="spyglass-bench-"))
    PolicyFile(Paths(home_on).policy_file).set(WEB_ACCESS, True)
    # One setting written out (its default value): enough for the whole model to be validated.
    Paths(home_set).config_file.write_text("[fetch]\nmax_chars = 20000\n", encoding="utf-8")
    off, on, configured = _environment(home_off), _environment(home_on), _environment(home_set)
    python = sys.executable
    cases: dict[str, Callable[[list[str]], Sample]] = {
        "python -c pass": _command([python, "-c", "pass"], off),
        "python -m http.server --help": _command([python, "-m", "http.server", "--help"], off),
        "spyglass --help": _command([SPYGLASS, "--help"], off),
        "spyglass fetch http://127.0.0.1/ (web access off)": _command(
            [SPYGLASS, "fetch", "http://127.0.0.1/"], off
        ),
        "spyglass fetch http://127.0.0.1/ (web access on, no terminal)": _command(
            [SPYGLASS, "fetch", "http://127.0.0.1/"], on
        ),
        "spyglass fetch http://127.0.0.1/ (web access off, a setting in config.toml)": _command(
            [SPYGLASS, "fetch", "http://127.0.0.1/"], configured
        ),
        "python -c 'import mcp.server' (the MCP SDK alone)": _command(
            [python, "-c", "import mcp.server"], off
        ),
        "spyglass mcp: spawn to first tools/list answer": _first_tools_list(on),
    }
    samples: dict[str, list[Sample]] = {name: [] for name in cases}
    try:
        if callgrind:
            print("| process | M instructions |")
            print("|---|---|")
            for name, once in cases.items():
                print(f"| {name} | {_instructions(once) / 1e6:.0f} |", flush=True)
            return
        # Interleaved, so a burst of load elsewhere on the machine hits every case alike.
        for _ in range(runs):
            for name, once in cases.items():
                samples[name].append(once([]))
    finally:
        for home in (home_off, home_on, home_set):
            shutil.rmtree(home, ignore_errors=True)
    peer = statistics.median(wall for wall, _cpu in samples["python -m http.server --help"])
    print("| process | runs | median s | × http.server --help | median CPU s |")
    print("|---|---|---|---|---|")
    for name, pairs in samples.items():
        median = statistics.median(wall for wall, _cpu in pairs)
        cpu = statistics.median(cpu for _wall, cpu in pairs)
        print(f"| {name} | {len(pairs)} | {median:.3f} | {median / peer:.1f} | {cpu:.3f} |")
    print(f"\nload average at the end: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument(
        "--callgrind", action="store_true", help="count instructions (one run each) instead"
    )
    arguments = parser.parse_args()
    main(arguments.runs, arguments.callgrind)
