"""What Spyglass declares is what it imports, and the wheel installs with the oldest pip we
support (issue 10, item 9)."""

from __future__ import annotations

import ast
import importlib.metadata
import os
import re
import subprocess
import sys
import tomllib
import urllib.error
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "src" / "spyglass"

#: The oldest pip a plain ``pip install spyglass`` is tested with: what Python 3.11 and 3.12
#: distributions commonly still ship.
OLDEST_PIP = "23.2.1"


def _normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


#: Extras that are part of what Spyglass itself imports (lazily, when a setting asks for
#: them); the other (dev) is for working on Spyglass.
RUNTIME_EXTRAS = ("shared", "render")


def declared(*, extras: tuple[str, ...] = ()) -> set[str]:
    """Distribution names in ``[project] dependencies`` (and ``extras``), normalised."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    specs = list(project["dependencies"])
    for extra in extras:
        specs += project["optional-dependencies"][extra]
    return {_normalise(re.split(r"[\s\[<>=!~;]", spec, maxsplit=1)[0]) for spec in specs}


def imported_modules() -> set[str]:
    """Top-level modules imported anywhere in src/spyglass, lazily or not."""
    names: set[str] = set()
    for path in SOURCE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
    return {name for name in names if name not in sys.stdlib_module_names and name != "spyglass"}


def imported_distributions() -> dict[str, set[str]]:
    """Each third-party module imported, with the distributions that provide it."""
    providers = importlib.metadata.packages_distributions()
    return {
        module: {_normalise(name) for name in providers.get(module, [])}
        for module in imported_modules()
    }


def test_every_module_spyglass_imports_comes_from_a_declared_dependency() -> None:
    wanted = declared(extras=RUNTIME_EXTRAS)
    undeclared = {
        module: sorted(dists)
        for module, dists in imported_distributions().items()
        if not dists & wanted
    }
    assert undeclared == {}, "imported but not in [project] dependencies"


def test_every_declared_dependency_is_imported_by_spyglass() -> None:
    used = set().union(*imported_distributions().values())
    unused = declared(extras=RUNTIME_EXTRAS) - used
    assert unused == set(), "declared in [project] dependencies but never imported"


def _index_reachable() -> str | None:
    """``None`` when the package index answers, else why not."""
    index = os.environ.get("PIP_INDEX_URL", "https://pypi.org/simple").rstrip("/")
    try:
        with urllib.request.urlopen(f"{index}/pip/", timeout=10) as response:
            response.read(1)
    except (urllib.error.URLError, OSError) as exc:
        return f"the package index {index} cannot be reached ({exc})"
    return None


def _run(*command: str | Path, cwd: Path | None = None) -> str:
    done = subprocess.run(
        [str(part) for part in command],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=900,
        check=False,
        env={k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "VIRTUAL_ENV"}},
    )
    assert done.returncode == 0, f"{command} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.mark.index
def test_the_wheel_installs_and_runs_with_the_oldest_supported_pip(tmp_path: Path) -> None:
    reason = _index_reachable()
    if reason is not None:
        pytest.skip(reason)
    _run(
        sys.executable, "-m", "hatchling", "build", "-t", "wheel", "-d", tmp_path / "dist", cwd=ROOT
    )
    (wheel,) = (tmp_path / "dist").glob("spyglass-*.whl")
    venv = tmp_path / "venv"
    base = getattr(sys, "_base_executable", sys.executable)
    _run(base, "-m", "venv", venv)
    python = venv / "bin" / "python"
    _run(python, "-m", "pip", "install", "--quiet", f"pip=={OLDEST_PIP}")
    assert OLDEST_PIP in _run(python, "-m", "pip", "--version")
    _run(python, "-m", "pip", "install", "--quiet", wheel)
    # The extractor stack is imported by the first fetch, not at start-up: check it too.
    _run(python, "-c", "import spyglass.extract.html")
    spyglass = venv / "bin" / "spyglass"
    assert "capabilities" in _run(spyglass, "--help")
    home = tmp_path / "home"
    listed = subprocess.run(
        [str(spyglass), "capabilities"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={"PATH": os.environ.get("PATH", ""), "SPYGLASS_HOME": str(home), "NO_COLOR": "1"},
    )
    assert listed.returncode == 0, listed.stderr
    assert "web.fetch" in listed.stdout and "web.search" in listed.stdout
