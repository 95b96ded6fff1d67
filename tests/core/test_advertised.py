"""What hosts are shown of an argument schema: no root combinators, no ``not`` anywhere."""

from __future__ import annotations

from typing import Any

import pytest

from spyglass.core.advertised import advertised, forbidden_keywords
from spyglass.core.schema import validation_error

SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "find things",
    "properties": {
        "a": {"type": "string", "not": {"const": "x"}},
        "b": {"type": "string"},
        "not": {"type": "integer"},
    },
    "additionalProperties": False,
    "allOf": [{"not": {"required": ["a", "b"]}, "description": "give a or b, not both"}],
}


def test_root_combinators_and_every_not_are_left_out_but_a_property_named_not_is_kept() -> None:
    assert forbidden_keywords(SCHEMA) == ["/allOf", "/allOf/0/not", "/properties/a/not"]
    shown = advertised(SCHEMA)
    assert forbidden_keywords(shown) == []
    assert shown["properties"] == {
        "a": {"type": "string"},
        "b": {"type": "string"},
        "not": {"type": "integer"},
    }


def test_the_removed_rules_are_still_described_to_the_model() -> None:
    assert advertised(SCHEMA)["description"] == "find things; give a or b, not both"
    assert advertised({"type": "object"}) == {"type": "object"}


@pytest.mark.parametrize(
    "arguments", [{"a": "y"}, {"b": "z"}, {"a": "x"}, {"a": "y", "b": "z"}, {"not": 3}]
)
def test_the_advertised_schema_refuses_nothing_the_removed_rules_alone_would_refuse(
    arguments: dict[str, Any],
) -> None:
    # {"a": "x"} and {"a": "y", "b": "z"} are refused by validation, with its message.
    assert validation_error(advertised(SCHEMA), arguments) is None


def test_the_schema_written_once_is_left_unchanged() -> None:
    before = repr(SCHEMA)
    advertised(SCHEMA)
    assert repr(SCHEMA) == before
