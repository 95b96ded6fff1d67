"""Schemas are checked once, here: every built-in capability's schemas are valid JSON Schema."""

from __future__ import annotations

import pytest
from jsonschema import Draft202012Validator

from spyglass.capabilities import BUILTIN
from spyglass.core.capability import Capability
from spyglass.core.schema import validation_error


@pytest.mark.parametrize("capability", BUILTIN.latest(), ids=lambda c: c.name)
def test_every_builtin_schema_is_valid_json_schema(capability: Capability) -> None:
    # The validator no longer checks a schema at every start; this is where it is checked.
    Draft202012Validator.check_schema(capability.argument_schema)
    Draft202012Validator.check_schema(capability.result_schema)


def test_a_bad_field_is_named_and_a_good_call_passes() -> None:
    schema = {
        "type": "object",
        "properties": {"url": {"type": "string", "minLength": 1}},
        "required": ["url"],
        "additionalProperties": False,
    }
    assert validation_error(schema, {"url": "https://example.org/"}) is None
    problem = validation_error(schema, {"url": 3})
    assert problem is not None and "url" in problem
