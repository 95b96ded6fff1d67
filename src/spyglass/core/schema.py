"""JSON Schema validation with messages that name the field but never echo its value.

One validator: jsonschema, Draft 2020-12, the draft the capabilities' schemas are written in.
Formats are annotations (not asserted) and defaults are not filled in: the caller's arguments
are bound to the approval as given.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import lru_cache
from typing import TYPE_CHECKING, Any

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
    if rule == "minLength" and expected == 1:
        return f"{field} must not be empty"
    if rule in {"minLength", "maxLength"}:
        word = "at least" if rule == "minLength" else "at most"
        return f"{field} must be {word} {_count(expected, 'character')}"
    if rule in {"minimum", "maximum"}:
        word = "at least" if rule == "minimum" else "at most"
        return f"{field} must be {word} {expected}"
    if rule in {"minItems", "maxItems"}:
        word = "at least" if rule == "minItems" else "at most"
        return f"{field} must have {word} {_count(expected, 'item')}"
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


def _count(number: Any, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


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


#: Schemas already spelt as JSON, by identity: (the schema, kept so its id is not reused,
#: and its text). A capability's schemas are made once and never changed, and the executor
#: validates with them three times a search turn; spelling one again costs more than
#: checking the value against it.
_SPELT: dict[int, tuple[object, str]] = {}
_SPELT_MAX = 256


def _key(schema: Mapping[str, Any] | bool) -> str:
    """``schema`` as sorted JSON: the key of its validator."""
    known = _SPELT.get(id(schema))
    if known is not None and known[0] is schema:
        return known[1]
    text = json.dumps(schema, sort_keys=True)
    if len(_SPELT) >= _SPELT_MAX:
        _SPELT.clear()  # schemas made per call, not per capability: keep no more than this
    _SPELT[id(schema)] = (schema, text)
    return text


def validator_for(schema: Mapping[str, Any]) -> Draft202012Validator:
    return _validator(_key(schema))


def validation_error(schema: Mapping[str, Any], instance: Any) -> str | None:
    """``None`` when ``instance`` is valid, else one message naming the first bad field."""
    if _depth(instance, MAX_NESTING) > MAX_NESTING:
        return f"arguments are nested more than {MAX_NESTING} levels deep"
    problem = unencodable(instance, schema)
    if problem is not None:
        return problem
    errors = sorted(
        validator_for(schema).iter_errors(instance),
        key=lambda e: (len(list(e.absolute_path)), str(e.validator)),
    )
    if not errors:
        return None
    return _describe(errors[0])
