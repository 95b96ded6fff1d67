"""Fixtures shared by every test: an isolated Spyglass home and a runtime built on it."""

from __future__ import annotations

from pathlib import Path

import pytest

from spyglass.paths import Paths
from spyglass.runtime import Runtime, build_runtime

# Fixture modules shared by several folders: the service under test (fake model, loopback
# web, in-process client) and the replaying search provider.
pytest_plugins = (
    "tests.support.service",
    "tests.search.replay",
    "tests.support.state_servers",
    "tests.support.stores",
)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh ``SPYGLASS_HOME``; no ``SPYGLASS_*`` variable from the outside leaks in."""
    import os

    for name in list(os.environ):
        if name.startswith("SPYGLASS_") and name != "SPYGLASS_TEST_SEARXNG_PYTHON":
            monkeypatch.delenv(name)
    folder = tmp_path / "home"
    folder.mkdir()
    monkeypatch.setenv("SPYGLASS_HOME", str(folder))
    return folder


@pytest.fixture
def paths(home: Path) -> Paths:
    return Paths(home)


@pytest.fixture
def runtime(paths: Paths) -> Runtime:
    return build_runtime(paths)
