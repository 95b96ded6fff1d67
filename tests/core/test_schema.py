"""Schemas are checked once, here: every built-in capability's schemas are valid JSON Schema."""

from __future__ import annotations

import random
from decimal import Decimal

import pytest
from jsonschema import Draft202012Validator

from spyglass.capabilities import BUILTIN
from spyglass.core.capability import Capability
from spyglass.core.schema import plainly_valid, validation_error


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


def _values(schema: object, rng: random.Random, depth: int = 0) -> object:
    """A value shaped by ``schema`` about half the time, and anything at all otherwise."""
    odd: list[object] = [
        None,
        True,
        False,
        0,
        1,
        -1,
        1.0,
        2.5,
        -0.0,
        10**20,
        "",
        " ",
        "x",
        "https://a.example/",
        "\u00e9\u00e8",
        "a" * 3000,
        [],
        [1],
        ["a", "a"],
        {},
        {"x": 1},
        Decimal("1"),
    ]
    if not isinstance(schema, dict) or depth > 4 or rng.random() < 0.3:
        return rng.choice(odd)
    kind = schema.get("type")
    if "const" in schema and rng.random() < 0.7:
        return rng.choice([schema["const"], "other", 1])
    if "enum" in schema and rng.random() < 0.7:
        return rng.choice([*schema["enum"], "other", 1])
    if kind == "object":
        properties = schema.get("properties", {})
        required = set(schema.get("required", ()))
        value = {
            name: _values(sub, rng, depth + 1)
            for name, sub in properties.items()
            if rng.random() < (0.97 if name in required else 0.5)
        }
        if rng.random() < 0.2:
            value[rng.choice(["extra", "URL", "offset "])] = rng.choice(odd)
        return value
    if kind == "array":
        return [_values(schema.get("items", {}), rng, depth + 1) for _ in range(rng.randint(0, 12))]
    if kind == "string":
        length = rng.choice([0, 1, 2, 5, 50, 2047, 2048, 2049, 3000])
        return rng.choice(["", " ", "h", "https://", "http://x/"]) + "x" * length
    if kind == "integer":
        return rng.choice([-1, 0, 1, 3, 5, 10, 11, 499, 500, 100_000, 100_001, 1.0, True])
    if kind == "boolean":
        return rng.choice([True, False, 0, 1, "true"])
    return rng.choice(odd)


SCHEMAS = [
    schema
    for capability in BUILTIN.latest()
    for schema in (capability.argument_schema, capability.result_schema)
]


@pytest.mark.parametrize("schema", SCHEMAS, ids=lambda s: str(sorted(s.get("properties", {})))[:40])
def test_the_shortcut_never_accepts_what_jsonschema_rejects(schema: dict[str, object]) -> None:
    rng = random.Random(10)
    validator = Draft202012Validator(schema)
    accepted = 0
    for _ in range(3000):
        value = _values(schema, rng)
        if plainly_valid(schema, value):
            accepted += 1
            assert list(validator.iter_errors(value)) == [], value
    assert accepted > 0  # the shortcut is exercised, not vacuous


def test_ordinary_arguments_are_accepted_without_jsonschema() -> None:
    fetch = BUILTIN.get("web.fetch", None)
    search = BUILTIN.get("web.search", None)
    assert fetch is not None and search is not None
    assert plainly_valid(fetch.argument_schema, {"url": "https://example.org/", "offset": 0})
    assert plainly_valid(
        search.argument_schema,
        {"query": "harbour tides", "count": 5, "include_domains": ["example.org"]},
    )
    # And what the shortcut cannot judge goes to jsonschema, which names the field.
    problem = validation_error(fetch.argument_schema, {"url": "https://example.org/", "offset": -1})
    assert problem is not None and "offset" in problem


@pytest.mark.parametrize(
    ("schema", "value"),
    [
        ({"type": "integer"}, 1.0),
        ({"type": "integer"}, True),
        ({"type": "number"}, False),
        ({"type": ["string", "null"]}, None),
        ({"enum": [1, 2]}, 1.0),
        ({"enum": [1, 2]}, True),
        ({"const": 1}, True),
        ({"const": False}, 0),
        ({"uniqueItems": True}, [1, True]),
        ({"uniqueItems": True}, [1, 1.0]),
        ({"minimum": 1}, Decimal("2")),
        ({"maxLength": 1}, "\U0001f600"),
        ({"pattern": "^a$"}, "a\n"),
        ({"type": "object", "patternProperties": {"^x": {}}, "additionalProperties": False}, {}),
    ],
)
def test_on_the_subtle_cases_the_compiled_validator_never_accepts_what_jsonschema_rejects(
    schema: dict[str, object], value: object
) -> None:
    if plainly_valid(schema, value):
        assert list(Draft202012Validator(schema).iter_errors(value)) == []


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
def test_a_schema_draft_7_would_read_differently_is_judged_by_jsonschema_alone(
    schema: dict[str, object], value: object
) -> None:
    # fastjsonschema knows Draft 7, which ignores these keywords and would accept the value.
    assert plainly_valid(schema, value) is False
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
    assert plainly_valid(schema, "not a date") is True
    assert validation_error(schema, "not a date") is None
