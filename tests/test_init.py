"""The curated public API."""

from __future__ import annotations

import subprocess
import sys

import pytest

import spyglass


@pytest.mark.parametrize("name", [n for n in spyglass.__all__ if n != "__version__"])
def test_every_public_name_resolves(name: str) -> None:
    assert getattr(spyglass, name) is not None


def test_unknown_attribute_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no_such_thing"):
        spyglass.no_such_thing  # noqa: B018


def test_importing_the_package_is_lightweight() -> None:
    heavy = "{'httpx', 'fastapi', 'mcp', 'click'}"
    code = f"import sys, spyglass; print(sorted(m for m in sys.modules if m in {heavy}))"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert out.stdout.strip() == "[]"


def test_importing_the_package_leaves_httpx_as_it_is() -> None:
    # Only the command line marks httpx's own command-line tool absent (see spyglass.cli).
    code = "import json, sys, spyglass\nprint(json.dumps('httpx._main' in sys.modules))"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert out.stdout.strip() == "false"


def test_the_documented_example_runs(tmp_path: object, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPYGLASS_HOME", str(tmp_path))
    runtime = spyglass.build_runtime()
    outcome = runtime.executor.invoke("system.health", None, {}, channel="script")
    assert outcome.status == "ok"
