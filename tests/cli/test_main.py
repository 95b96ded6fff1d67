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


def test_an_argument_that_is_not_utf8_is_a_clear_usage_error_without_a_traceback(
    home: Path,
) -> None:
    import os
    import subprocess

    from tests.cli.support import SPYGLASS

    environ = {k: v for k, v in os.environ.items() if not k.startswith("SPYGLASS_")}
    environ.update({"SPYGLASS_HOME": str(home), "NO_COLOR": "1", "LC_ALL": "C.UTF-8"})
    done = subprocess.run(
        [SPYGLASS.encode(), b"search", b"caf\xe9", b"--yes"],
        capture_output=True,
        env=environ,
        stdin=subprocess.DEVNULL,
        timeout=60,
        check=False,
    )
    stderr = done.stderr.decode("utf-8")
    assert done.returncode == 2, stderr
    assert "argument 2" in stderr and "not valid UTF-8" in stderr
    assert "caf\\xe9" in stderr
    assert "Traceback" not in stderr
    assert len(stderr.splitlines()) <= 3
