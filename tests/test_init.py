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
    heavy = "{'httpx', 'fastapi', 'mcp', 'typer'}"
    code = f"import sys, spyglass; print(sorted(m for m in sys.modules if m in {heavy}))"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert out.stdout.strip() == "[]"


def test_httpx_imported_after_spyglass_works_without_loading_its_command_line_tool() -> None:
    code = (
        "import json, sys, spyglass, httpx\n"
        "host = httpx.URL('https://Example.org:8443/a').host\n"
        "tool = sorted({m.split('.')[0] for m, v in sys.modules.items() if v} & "
        "{'click', 'rich', 'pygments'})\n"
        "print(json.dumps([host, tool, sys.modules['httpx._main'] is None]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert out.stdout.strip() == '["example.org", [], true]'


def test_the_documented_example_runs(tmp_path: object, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPYGLASS_HOME", str(tmp_path))
    runtime = spyglass.build_runtime()
    outcome = runtime.executor.invoke("system.health", None, {}, channel="script")
    assert outcome.status == "ok"
