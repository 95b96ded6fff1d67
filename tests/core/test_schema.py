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


@pytest.mark.parametrize(
    ("rule", "value", "message"),
    [
        ({"minLength": 1}, "", "field must not be empty"),
        ({"minLength": 2}, "x", "field must be at least 2 characters"),
        ({"maxLength": 1}, "xy", "field must be at most 1 character"),
        ({"minItems": 1}, [], "field must have at least 1 item"),
        ({"maxItems": 2}, [1, 2, 3], "field must have at most 2 items"),
    ],
)
def test_a_length_rule_is_said_in_words_that_agree_with_its_number(
    rule: dict[str, int], value: object, message: str
) -> None:
    schema = {"type": "object", "properties": {"field": rule}}
    assert validation_error(schema, {"field": value}) == message


def test_ordinary_arguments_pass_and_a_bad_one_is_named() -> None:
    fetch = BUILTIN.get("web.fetch", None)
    search = BUILTIN.get("web.search", None)
    assert fetch is not None and search is not None
    assert (
        validation_error(fetch.argument_schema, {"url": "https://example.org/", "offset": 0})
        is None
    )
    assert (
        validation_error(
            search.argument_schema,
            {"query": "harbour tides", "count": 5, "include_domains": ["example.org"]},
        )
        is None
    )
    problem = validation_error(fetch.argument_schema, {"url": "https://example.org/", "offset": -1})
    assert problem is not None and "offset" in problem


@pytest.mark.parametrize(
    ("schema", "value"),
    [
        ({"type": "array", "prefixItems": [{"type": "string"}]}, [1]),
        ({"type": "object", "dependentRequired": {"a": ["b"]}}, {"a": 1}),
        ({"$defs": {"text": {"type": "string"}}, "$ref": "#/$defs/text"}, 3),
        (
            {"type": "object", "properties": {"x": {"unevaluatedProperties": False}}},
            {"x": {"y": 1}},
        ),
    ],
)
def test_the_keywords_of_draft_2020_12_are_enforced(
    schema: dict[str, object], value: object
) -> None:
    # Draft 7 ignores these keywords and would accept the value.
    assert validation_error(schema, value) is not None


def test_validation_leaves_the_arguments_as_they_were_given() -> None:
    # A validator that fills in defaults would change what the owner is asked to approve.
    fetch = BUILTIN.get("web.fetch", None)
    assert fetch is not None
    arguments = {"url": "https://example.org/"}
    assert validation_error(fetch.argument_schema, arguments) is None
    assert arguments == {"url": "https://example.org/"}


def test_a_format_is_an_annotation_not_a_rule() -> None:
    schema = {"type": "string", "format": "date"}
    assert validation_error(schema, "not a date") is None
