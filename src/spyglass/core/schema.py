"""JSON Schema validation with messages that name the field but never echo its value.

Two maintained validators, each doing what it is best at. ``fastjsonschema`` compiles each
schema once into a Python function that says "valid" in microseconds and imports in a few
milliseconds; it answers for every valid value. jsonschema (Draft 2020-12) is the judge of
every value the compiled function does not accept: it decides whether it is really invalid and
explains why. Importing jsonschema costs about a fifth of a second (its metaschema registry),
more than the rest of a refused command, and validating with it about a millisecond a call;
valid calls pay for neither. ``tests/core/test_schema.py`` checks on thousands of generated
values per schema that the compiled function never accepts what jsonschema rejects.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
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


#: Keywords whose meaning is the same in Draft 7 (fastjsonschema's newest) and Draft 2020-12.
#: A schema using any other (``prefixItems``, ``$ref``, ``dependentRequired``, ...) is judged
#: by jsonschema alone: Draft 7 would ignore it and accept what 2020-12 refuses.
_SHARED_KEYWORDS = frozenset(
    {
        "type", "properties", "required", "additionalProperties", "minLength", "maxLength",
        "minItems", "maxItems", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
        "multipleOf", "enum", "const", "pattern", "items", "uniqueItems", "allOf", "anyOf",
        "oneOf", "not", "minProperties", "maxProperties",
        # Annotations: no effect on validity in either draft here (formats are not asserted).
        "title", "description", "default", "examples", "$comment", "format", "deprecated",
    }
)  # fmt: skip
#: Keywords whose value is one subschema, or a list or mapping of subschemas.
_ONE, _MANY, _BY_NAME = (
    {"items", "not", "additionalProperties"},
    {"allOf", "anyOf", "oneOf"},
    {"properties"},
)


def _shared(schema: Any) -> bool:
    """Whether ``schema`` means the same to Draft 7 and Draft 2020-12, throughout."""
    if isinstance(schema, bool):
        return True
    if not isinstance(schema, dict) or not set(schema) <= _SHARED_KEYWORDS:
        return False
    if isinstance(schema.get("items"), list):
        return False  # a tuple in Draft 7, prefixItems' job in 2020-12
    return (
        all(_shared(schema[key]) for key in _ONE & set(schema))
        and all(_shared(sub) for key in _MANY & set(schema) for sub in schema[key])
        and all(_shared(sub) for key in _BY_NAME & set(schema) for sub in schema[key].values())
    )


@lru_cache(maxsize=64)
def _compiled(schema_json: str) -> Callable[[Any], Any] | None:
    import fastjsonschema

    schema = json.loads(schema_json)
    if not _shared(schema):
        return None
    try:
        # Defaults are not filled in (the caller's arguments are bound to the approval as
        # given) and formats are not asserted (2020-12 treats them as annotations, as
        # jsonschema does).
        return fastjsonschema.compile(schema, use_default=False, use_formats=False)
    except fastjsonschema.JsonSchemaDefinitionException:
        return None  # e.g. a pattern Python's re cannot compile: jsonschema says what is wrong


#: Schemas already spelt as JSON, by identity: (the schema, kept so its id is not reused,
#: and its text). A capability's schemas are made once and never changed, and the executor
#: validates with them three times a search turn; spelling one again costs more than
#: checking the value against it.
_SPELT: dict[int, tuple[object, str]] = {}
_SPELT_MAX = 256


def _key(schema: Mapping[str, Any] | bool) -> str:
    """``schema`` as sorted JSON: the key of its compiled validators."""
    known = _SPELT.get(id(schema))
    if known is not None and known[0] is schema:
        return known[1]
    text = json.dumps(schema, sort_keys=True)
    if len(_SPELT) >= _SPELT_MAX:
        _SPELT.clear()  # schemas made per call, not per capability: keep no more than this
    _SPELT[id(schema)] = (schema, text)
    return text


def plainly_valid(schema: Mapping[str, Any] | bool, value: Any) -> bool:
    """True when ``value`` satisfies ``schema`` by the compiled validator; False means "ask
    jsonschema" (a schema the two drafts read differently always does; otherwise jsonschema
    may still accept the value, and only its answer counts then)."""
    import fastjsonschema

    compiled = _compiled(_key(schema))
    if compiled is None:
        return False
    try:
        compiled(value)
    except fastjsonschema.JsonSchemaException:
        return False
    return True


def validator_for(schema: Mapping[str, Any]) -> Draft202012Validator:
    return _validator(_key(schema))


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
