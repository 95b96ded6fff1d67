"""What every settings section shares: strict fields, list parsing, the constants."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, field_validator

from spyglass.version import __version__

ENV_PREFIX = "SPYGLASS_"
PROJECT_URL = "https://github.com/spyglass-dev/spyglass"
DEFAULT_USER_AGENT = f"Spyglass/{__version__} (+{PROJECT_URL})"
MASK = "********"

S = TypeVar("S", bound=BaseModel)


# Default factories are plain functions: pydantic inspects each factory's signature when it
# builds a model, and the signature of ``list`` (a builtin, parsed from its text signature)
# or of a model class (built from its fields) costs far more than a function's. Settings are
# built by every command, so this is start-up time (docs/benchmarks.md, start-up).
def empty_list() -> list[Any]:
    """A new empty list: the default of every list setting."""
    return []


def section(model: type[S]) -> Callable[[], S]:
    """The default factory of a nested section: ``model`` with its own defaults."""

    def default() -> S:
        return model()

    return default


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    @field_validator("*", mode="before")
    @classmethod
    def _split_list_strings(cls, value: Any, info: Any) -> Any:
        # Environment variables are strings; accept "a,b" as well as JSON for list settings.
        field = cls.model_fields.get(info.field_name)
        if isinstance(value, str) and field is not None and _is_list(field.annotation):
            text = value.strip()
            if text.startswith("["):
                return json.loads(text)
            return [part.strip() for part in text.split(",") if part.strip()]
        return value


def _is_list(annotation: Any) -> bool:
    return getattr(annotation, "__origin__", None) is list
