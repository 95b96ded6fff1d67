"""What every settings section shares: strict fields, list parsing, the constants."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, field_validator

from spyglass.version import __version__

ENV_PREFIX = "SPYGLASS_"
PROJECT_URL = "https://github.com/spyglass-dev/spyglass"
DEFAULT_USER_AGENT = f"Spyglass/{__version__} (+{PROJECT_URL})"
MASK = "********"


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
