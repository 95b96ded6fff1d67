"""scripts/dev.py: switching between `serve` and `test` never reinstalls the environment."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent


def _dev() -> ModuleType:
    spec = importlib.util.spec_from_file_location("dev_script", ROOT / "scripts" / "dev.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


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
