"""The ``spyglass`` console script, run for real in a subprocess with a temporary home."""

from __future__ import annotations

from pathlib import Path

from tests.cli.support import run


def test_version_and_help_work_without_a_home(home: Path) -> None:
    assert run("--version", home=home).stdout.startswith("spyglass ")
    result = run("--help", home=home)
    assert result.code == 0
    for command in ("capabilities", "policy", "audit", "config", "invoke"):
        assert command in result.stdout


def test_unknown_command_is_a_usage_error(home: Path) -> None:
    result = run("launch", home=home)
    assert result.code == 2
    assert "Traceback" not in result.stderr
