"""Capabilities: names, wire names, and a confirmation rule no capability can declare."""

from __future__ import annotations

import itertools

import pytest

from spyglass.capabilities import BUILTIN
from spyglass.core.advertised import forbidden_keywords
from spyglass.core.capability import (
    CONFIRMATION_TABLE,
    Bounds,
    Capability,
    Confirmation,
    Network,
    SideEffect,
    to_wire_name,
)
from spyglass.errors import DefinitionError
from tests.support import capabilities as fixtures


def test_confirmation_cannot_be_declared_by_a_capability() -> None:
    with pytest.raises(TypeError):
        fixtures.make(confirmation=Confirmation.AUTOMATIC)


@pytest.mark.parametrize(("side_effect", "network"), list(itertools.product(SideEffect, Network)))
def test_confirmation_is_derived_from_the_table(side_effect: SideEffect, network: Network) -> None:
    capability = fixtures.make(side_effect=side_effect, network=network)
    assert capability.confirmation is CONFIRMATION_TABLE[(side_effect, network)]
    expected = (
        Confirmation.AUTOMATIC
        if (side_effect, network) == (SideEffect.READ_ONLY, Network.LOCAL)
        else Confirmation.REQUIRED
    )
    assert capability.confirmation is expected


@pytest.mark.parametrize(
    "name",
    [
        "Web.Search",
        "web",
        "web..search",
        "web.search!",
        "web-search.x",
        ".web",
        "web.",
        "1web.search",
    ],
)
def test_invalid_names_fail_at_definition(name: str) -> None:
    with pytest.raises(DefinitionError):
        fixtures.make(name)


def test_wire_names_use_only_the_openai_tool_alphabet() -> None:
    assert to_wire_name("web.search") == "web_search"
    assert to_wire_name("system.health") == "system_health"


def test_schemas_must_forbid_additional_properties() -> None:
    with pytest.raises(DefinitionError, match="additionalProperties"):
        fixtures.make(argument_schema={"type": "object", "properties": {}})


def test_external_capability_needs_a_policy_switch() -> None:
    with pytest.raises(DefinitionError, match="policy_key"):
        fixtures.make(policy_key=None)


def test_bounds_must_be_positive() -> None:
    with pytest.raises(DefinitionError):
        Bounds(timeout_seconds=0)
    with pytest.raises(DefinitionError):
        Bounds(timeout_seconds=1, max_invocations_per_turn=0)
    assert Bounds(timeout_seconds=1).max_result_bytes == 65536


def test_openai_tool_uses_the_advertised_argument_schema() -> None:
    capability = fixtures.make()
    tool = capability.openai_tool()
    assert tool["function"]["name"] == "test_echo"
    assert tool["function"]["parameters"] is capability.advertised_arguments
    assert capability.advertised_arguments == capability.argument_schema


@pytest.mark.parametrize("capability", list(BUILTIN), ids=lambda c: f"{c.name}@{c.version}")
def test_no_builtin_capability_shows_models_a_keyword_a_host_refuses(
    capability: Capability,
) -> None:
    assert forbidden_keywords(capability.openai_tool()["function"]["parameters"]) == []
