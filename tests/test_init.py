"""The curated public API."""

from __future__ import annotations

import pytest

import spyglass


@pytest.mark.parametrize("name", [n for n in spyglass.__all__ if n != "__version__"])
def test_every_public_name_resolves(name: str) -> None:
    assert getattr(spyglass, name) is not None


def test_unknown_attribute_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no_such_thing"):
        spyglass.no_such_thing  # noqa: B018


def test_the_documented_example_runs(tmp_path: object, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPYGLASS_HOME", str(tmp_path))
    runtime = spyglass.build_runtime()
    outcome = runtime.executor.invoke("system.health", None, {}, channel="script")
    assert outcome.status == "ok"
