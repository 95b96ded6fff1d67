"""Run the real ``spyglass`` console script in a subprocess, optionally on a terminal."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

SPYGLASS = str(Path(sys.executable).parent / "spyglass")


@dataclass
class Result:
    code: int
    stdout: str
    stderr: str


def run(*args: str, home: Path, env: dict[str, str] | None = None, timeout: float = 60) -> Result:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("SPYGLASS_")}
    environ.update({"SPYGLASS_HOME": str(home), "NO_COLOR": "1", "COLUMNS": "200"})
    environ.update(env or {})
    done = subprocess.run(
        [SPYGLASS, *args],
        capture_output=True,
        text=True,
        env=environ,
        stdin=subprocess.DEVNULL,
        timeout=timeout,
        check=False,
    )
    return Result(done.returncode, done.stdout, done.stderr)


def run_on_terminal(
    *args: str, home: Path, answer: str, env: dict[str, str] | None = None, timeout: float = 60
) -> Result:
    """Run with a pseudo-terminal as stdin, type ``answer`` at the prompt, collect output."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith("SPYGLASS_")}
    environ.update({"SPYGLASS_HOME": str(home), "NO_COLOR": "1", "COLUMNS": "200"})
    environ.update(env or {})
    controller, terminal = pty.openpty()
    proc = subprocess.Popen(
        [SPYGLASS, *args],
        stdin=terminal,
        stdout=subprocess.PIPE,
        stderr=terminal,
        env=environ,
        text=True,
    )
    os.close(terminal)
    seen = b""
    deadline = time.monotonic() + timeout
    try:
        while b"Approve?" not in seen:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or proc.poll() is not None:
                break
            ready, _, _ = select.select([controller], [], [], remaining)
            if ready:
                try:
                    seen += os.read(controller, 4096)
                except OSError:
                    break
        if b"Approve?" in seen:
            os.write(controller, answer.encode() + b"\n")
        out, _ = proc.communicate(timeout=max(deadline - time.monotonic(), 1))
        while True:
            ready, _, _ = select.select([controller], [], [], 0)
            if not ready:
                break
            try:
                chunk = os.read(controller, 4096)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
        os.close(controller)
    return Result(proc.returncode, out, seen.decode(errors="replace").replace("\r\n", "\n"))
