"""scripts/dev.py: switching between `serve` and `test` never reinstalls the environment."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

from tests.support.scripts import load_script


def _dev() -> ModuleType:
    return load_script("dev")


def test_serve_after_test_and_test_after_serve_install_nothing(tmp_path: Path) -> None:
    dev = _dev()
    pyproject = b"[project]\nname = 'x'\n"
    installs: list[set[str]] = []
    for command_extras in [set(), {"dev"}, set(), {"dev"}, set()]:  # serve, test, serve...
        missing = dev.extras_to_install(dev.installed_extras(tmp_path, pyproject), command_extras)
        if missing is not None:
            installs.append(missing)
            dev.record_install(tmp_path, pyproject, missing)
    assert installs == [set(), {"dev"}]


def test_a_changed_pyproject_installs_again_with_what_is_asked(tmp_path: Path) -> None:
    dev = _dev()
    dev.record_install(tmp_path, b"old", {"dev"})
    assert dev.extras_to_install(dev.installed_extras(tmp_path, b"old"), set()) is None
    assert dev.extras_to_install(dev.installed_extras(tmp_path, b"new"), set()) == set()
    dev.record_install(tmp_path, b"new", set())
    assert len(list(tmp_path.glob(".installed-*"))) == 1
