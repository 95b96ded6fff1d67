"""The registry is fixed, clash-free, and maps wire names both ways."""

from __future__ import annotations

import pytest

from spyglass.capabilities import BUILTIN
from spyglass.core.capability import to_wire_name
from spyglass.core.registry import Registry
from spyglass.errors import DefinitionError
from tests.support import capabilities as fixtures


def test_duplicate_name_and_version_fails_when_the_registry_is_built() -> None:
    with pytest.raises(DefinitionError, match="twice"):
        Registry([fixtures.make("test.echo"), fixtures.make("test.echo")])


def test_two_names_with_one_wire_name_fail_when_the_registry_is_built() -> None:
    with pytest.raises(DefinitionError, match="wire name"):
        Registry([fixtures.make("test.a_b"), fixtures.make("test_a.b")])


def test_lookup_is_exact_and_none_version_means_newest() -> None:
    registry = Registry([fixtures.make(version=1), fixtures.make(version=2)])
    assert registry.get("test.echo", 1).version == 1
    assert registry.get("test.echo").version == 2
    assert registry.get("test.echo", 3) is None
    assert registry.get("test.ech") is None
    assert [c.version for c in registry.latest()] == [2]


def test_wire_name_mapping_round_trips_for_every_builtin_capability() -> None:
    for capability in BUILTIN:
        assert BUILTIN.name_for_wire(to_wire_name(capability.name)) == capability.name
    assert BUILTIN.name_for_wire("no_such_tool") is None


def test_builtin_registry_has_system_health_running_automatically() -> None:
    health = BUILTIN.get("system.health", 1)
    assert health is not None
    assert health.confirmation.value == "automatic"
