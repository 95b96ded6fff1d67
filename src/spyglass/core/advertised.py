"""The part of an argument schema that every MCP host and model server accepts.

A capability's argument schema is written once and is what validation enforces, rules and
messages included. What hosts are *shown* is a looser copy of it: the Anthropic API refuses a
whole request whose tool schema has ``allOf``/``anyOf``/``oneOf`` at the top level (Claude
Code drops such a tool), OpenAI's function validation refuses a root ``allOf`` or a ``not``,
and servers that turn schemas into grammars (llama-server, vLLM) handle ``not`` poorly or not
at all. Removing those can only let more arguments through, never fewer, so a model that
follows the advertised schema is never refused by it, and validation still refuses, with its
own message, what the removed rules forbid. Their descriptions are kept in the root
``description`` so the model is still told.
"""

from __future__ import annotations

from typing import Any

JSON = dict[str, Any]

#: Keywords no advertised schema may have at its root.
FORBIDDEN_AT_ROOT = frozenset({"allOf", "anyOf", "oneOf", "not", "if", "then", "else"})
#: Keywords no advertised schema may have anywhere.
FORBIDDEN_ANYWHERE = frozenset({"not"})


def advertised(schema: JSON) -> JSON:
    """``schema`` without the keywords hosts refuse; the removed rules' descriptions joined
    into the root ``description``."""
    said = [schema["description"]] if isinstance(schema.get("description"), str) else []
    for keyword in sorted(FORBIDDEN_AT_ROOT & schema.keys()):
        said.extend(_descriptions(schema[keyword]))
    root = {
        k: _without_not(v, names=k in _NAMED_SCHEMAS)
        for k, v in schema.items()
        if k not in FORBIDDEN_AT_ROOT
    }
    if said:
        root["description"] = "; ".join(dict.fromkeys(said))
    return root


def forbidden_keywords(schema: JSON) -> list[str]:
    """Where ``schema`` has a keyword hosts refuse, as JSON-pointer-like paths; empty if none."""
    found = [f"/{k}" for k in sorted(FORBIDDEN_AT_ROOT & schema.keys())]
    found.extend(_find_anywhere(schema, ""))
    return sorted(set(found))


def _descriptions(rule: Any) -> list[str]:
    rules = rule if isinstance(rule, list) else [rule]
    return [r["description"] for r in rules if isinstance(r, dict) and "description" in r]


#: Keywords whose value maps names to schemas: a property called "not" is not the keyword.
_NAMED_SCHEMAS = frozenset({"properties", "patternProperties", "$defs", "definitions"})


def _without_not(value: Any, *, names: bool = False) -> Any:
    if isinstance(value, dict):
        if names:
            return {k: _without_not(v) for k, v in value.items()}
        return {
            k: _without_not(v, names=k in _NAMED_SCHEMAS)
            for k, v in value.items()
            if k not in FORBIDDEN_ANYWHERE
        }
    if isinstance(value, list):
        return [_without_not(v) for v in value]
    return value


def _find_anywhere(value: Any, path: str, *, names: bool = False) -> list[str]:
    found: list[str] = []
    if isinstance(value, dict):
        for key, child in value.items():
            if key in FORBIDDEN_ANYWHERE and not names:
                found.append(f"{path}/{key}")
            found.extend(
                _find_anywhere(child, f"{path}/{key}", names=not names and key in _NAMED_SCHEMAS)
            )
    elif isinstance(value, list):
        for index, child in enumerate(value):
            found.extend(_find_anywhere(child, f"{path}/{index}"))
    return found
