"""JSON Schema validation with messages that name the field but never echo its value.

jsonschema is the validator, and the only judge of what is invalid and why. Importing it costs
about a fifth of a second (its metaschema registry), more than the rest of a refused command,
so arguments that plainly satisfy a schema written with the common keywords (types,
properties, required, lengths, bounds, string enums and consts, patterns, items, ``allOf``,
and "not both of these") are accepted by :func:`plainly_valid` without it; anything else, and
every failure, goes to jsonschema. ``tests/core/test_schema.py`` checks on thousands of
generated values that the shortcut never accepts what jsonschema rejects.
"""

from __future__ import annotations

import json
import numbers
import re
from collections.abc import Callable, Mapping, Sized
from functools import lru_cache
from typing import TYPE_CHECKING, Any, cast

from spyglass.core.encoding import unencodable

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import ValidationError

MAX_NESTING = 32


def _path(error: ValidationError) -> str:
    parts = [str(part) for part in error.absolute_path]
    return ".".join(parts) if parts else "arguments"


def _describe(error: ValidationError) -> str:
    # jsonschema's own messages repeat the offending value, which may be a megabyte long or
    # carry content that must not be echoed; describe the rule instead.
    field = _path(error)
    rule = error.validator
    expected: Any = error.validator_value
    instance: Any = error.instance
    schema: Any = error.schema
    if rule == "required":
        missing = [name for name in expected if name not in (instance or {})]
        return f"{', '.join(missing) or field} is required"
    if rule == "additionalProperties":
        # The unexpected names are counted, never repeated: a name is caller text like any
        # value, and may carry what must not be echoed (or cannot even be encoded).
        allowed = sorted((schema.get("properties") or {}).keys())
        count = len(set(instance) - set(allowed)) if isinstance(instance, dict) else 1
        what = f"{count} unexpected field{'s' if count != 1 else ''}"
        if field != "arguments":
            what += f" in {field}"
        if not allowed:
            return f"{what}; this capability takes no arguments"
        return f"{what}; allowed fields: {', '.join(allowed)}"
    if rule == "type":
        return f"{field} must be of type {expected}"
    if rule == "enum":
        return f"{field} must be one of {', '.join(map(str, expected))}"
    if rule in {"minLength", "maxLength"}:
        word = "at least" if rule == "minLength" else "at most"
        return f"{field} must be {word} {expected} characters"
    if rule in {"minimum", "maximum"}:
        word = "at least" if rule == "minimum" else "at most"
        return f"{field} must be {word} {expected}"
    if rule in {"minItems", "maxItems"}:
        word = "at least" if rule == "minItems" else "at most"
        return f"{field} must have {word} {expected} items"
    if rule == "uniqueItems":
        return f"{field} must not repeat items"
    if rule == "pattern":
        # A schema may say what the pattern means, since the pattern itself is unreadable.
        hint = schema.get("description") if isinstance(schema, dict) else None
        return (
            f"{field} has an invalid format ({hint})" if hint else f"{field} has an invalid format"
        )
    if rule == "format":
        return f"{field} must be a valid {expected}"
    if rule == "not":
        hint = schema.get("description") if isinstance(schema, dict) else None
        return f"{field}: {hint}" if hint else f"{field} is not allowed here"
    if rule in {"oneOf", "anyOf", "allOf", "dependentSchemas", "dependentRequired"}:
        description = schema.get("description") if isinstance(schema, dict) else None
        return f"{field}: {description}" if description else f"{field} is not a valid combination"
    return f"{field} is invalid ({rule})"


def _depth(value: Any, limit: int) -> int:
    # Iterative, so a hostile 100 000-deep document cannot exhaust the interpreter's stack.
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        deepest = max(deepest, depth)
        if deepest > limit:
            return deepest
        if isinstance(item, Mapping):
            stack.extend((child, depth + 1) for child in item.values())
        elif isinstance(item, list):
            stack.extend((child, depth + 1) for child in item)
    return deepest


@lru_cache(maxsize=64)
def _validator(schema_json: str) -> Draft202012Validator:
    from jsonschema import Draft202012Validator

    # The schemas are the capabilities' own constants: tests/core/test_schema.py checks each
    # against the metaschema once, so a command does not pay for that at every start.
    return Draft202012Validator(json.loads(schema_json))


#: Keywords that never make a value invalid here (``format`` is not asserted: no checker).
_ANNOTATIONS = frozenset(
    {"title", "description", "default", "examples", "$comment", "format", "deprecated"}
)
_NUMBER = (int, float)


def _type(expected: Any, value: Any, schema: Mapping[str, Any]) -> bool:
    if expected == "string":
        return isinstance(value, str)
    if expected == "boolean":
        return isinstance(value, bool)
    if expected == "object":
        return isinstance(value, dict)
    if expected == "array":
        return isinstance(value, list)
    if expected == "integer":
        return type(value) is int  # a float with an integral value: left to jsonschema
    if expected == "number":
        return isinstance(value, _NUMBER) and not isinstance(value, bool)
    if expected == "null":
        return value is None
    return False  # a list of types, or an unknown one


def _properties(expected: Any, value: Any, schema: Mapping[str, Any]) -> bool:
    if not isinstance(value, dict):
        return True
    if not isinstance(expected, dict):
        return False
    return all(
        plainly_valid(expected[name], item) for name, item in value.items() if name in expected
    )


def _required(expected: Any, value: Any, schema: Mapping[str, Any]) -> bool:
    return not isinstance(value, dict) or all(name in value for name in expected)


def _additional(expected: Any, value: Any, schema: Mapping[str, Any]) -> bool:
    if not isinstance(value, dict):
        return True
    if "patternProperties" in schema:
        return False
    known = schema.get("properties", {})
    extra = [item for name, item in value.items() if name not in known]
    if expected is False:
        return not extra
    return all(plainly_valid(expected, item) for item in extra)


def _sized(kind: type, compare: Callable[[int, Any], bool]) -> Callable[..., bool]:
    def check(expected: Any, value: Any, schema: Mapping[str, Any]) -> bool:
        return not isinstance(value, kind) or compare(len(cast(Sized, value)), expected)

    return check


def _bound(compare: Callable[[Any, Any], bool]) -> Callable[..., bool]:
    def check(expected: Any, value: Any, schema: Mapping[str, Any]) -> bool:
        if isinstance(value, bool) or not isinstance(value, numbers.Number):
            return True  # bounds apply to numbers only
        if not isinstance(value, _NUMBER):
            return False  # a Decimal or a Fraction: jsonschema's to compare
        return isinstance(expected, _NUMBER) and compare(value, expected)

    return check


def _enum(expected: Any, value: Any, schema: Mapping[str, Any]) -> bool:
    # Strings only: JSON Schema's equality of numbers and booleans is jsonschema's to decide.
    if not isinstance(value, str) or not isinstance(expected, list):
        return False
    return all(isinstance(member, str) for member in expected) and value in expected


def _const(expected: Any, value: Any, schema: Mapping[str, Any]) -> bool:
    return isinstance(value, str) and isinstance(expected, str) and value == expected


def _pattern(expected: Any, value: Any, schema: Mapping[str, Any]) -> bool:
    return not isinstance(value, str) or re.search(expected, value) is not None


def _items(expected: Any, value: Any, schema: Mapping[str, Any]) -> bool:
    return not isinstance(value, list) or all(plainly_valid(expected, item) for item in value)


def _unique(expected: Any, value: Any, schema: Mapping[str, Any]) -> bool:
    if not isinstance(value, list) or expected is False:
        return True
    return all(isinstance(item, str) for item in value) and len(set(value)) == len(value)


def _all_of(expected: Any, value: Any, schema: Mapping[str, Any]) -> bool:
    return isinstance(expected, list) and all(plainly_valid(sub, value) for sub in expected)


def _not(expected: Any, value: Any, schema: Mapping[str, Any]) -> bool:
    # Proving a subschema fails is judged for one form only: ``{"required": [...]}`` (as in
    # "not both of these"), which an object lacking any of the names fails.
    if not isinstance(expected, dict) or not isinstance(value, dict):
        return False
    if set(expected) - _ANNOTATIONS != {"required"}:
        return False
    return any(name not in value for name in expected["required"])


_CHECKS: dict[str, Callable[[Any, Any, Mapping[str, Any]], bool]] = {
    "allOf": _all_of,
    "not": _not,
    "type": _type,
    "properties": _properties,
    "required": _required,
    "additionalProperties": _additional,
    "minLength": _sized(str, lambda size, limit: size >= limit),
    "maxLength": _sized(str, lambda size, limit: size <= limit),
    "minItems": _sized(list, lambda size, limit: size >= limit),
    "maxItems": _sized(list, lambda size, limit: size <= limit),
    "minimum": _bound(lambda value, limit: value >= limit),
    "maximum": _bound(lambda value, limit: value <= limit),
    "exclusiveMinimum": _bound(lambda value, limit: value > limit),
    "exclusiveMaximum": _bound(lambda value, limit: value < limit),
    "enum": _enum,
    "const": _const,
    "pattern": _pattern,
    "items": _items,
    "uniqueItems": _unique,
}


def plainly_valid(schema: Any, value: Any) -> bool:
    """True only when ``value`` certainly satisfies ``schema``; False means "ask jsonschema".

    Exact for the keywords in ``_CHECKS`` (as Draft 2020-12 and jsonschema define them);
    any other keyword, or a value whose judgement is subtle (``1.0`` for an integer, numbers
    in an enum), answers False.
    """
    if schema is True:
        return True
    if not isinstance(schema, dict):
        return False
    for keyword, expected in schema.items():
        if keyword in _ANNOTATIONS:
            continue
        check = _CHECKS.get(keyword)
        if check is None or not check(expected, value, schema):
            return False
    return True


def validator_for(schema: Mapping[str, Any]) -> Draft202012Validator:
    return _validator(json.dumps(schema, sort_keys=True))


def validation_error(schema: Mapping[str, Any], instance: Any) -> str | None:
    """``None`` when ``instance`` is valid, else one message naming the first bad field."""
    if _depth(instance, MAX_NESTING) > MAX_NESTING:
        return f"arguments are nested more than {MAX_NESTING} levels deep"
    problem = unencodable(instance, schema)
    if problem is not None:
        return problem
    if plainly_valid(schema, instance):
        return None
    errors = sorted(
        validator_for(schema).iter_errors(instance),
        key=lambda e: (len(list(e.absolute_path)), str(e.validator)),
    )
    if not errors:
        return None
    return _describe(errors[0])
