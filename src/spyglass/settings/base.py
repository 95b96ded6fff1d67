"""What every settings section shares: strict fields, list parsing, the constants."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, BeforeValidator, ConfigDict

from spyglass import jsontext
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
    """The default factory of a nested section: ``model`` with its own defaults.

    Constructed, not validated: pydantic does not validate a default, and validating an empty
    section would build that section's own validator, which settings read from a file or the
    environment never use (the whole model's validator validates every section given).
    """

    def default() -> S:
        return model.model_construct()

    return default


def split_list_string(value: Any) -> Any:
    """Environment variables are strings: a list setting takes "a,b" as well as JSON."""
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            return jsontext.loads(text)
        return [part.strip() for part in text.split(",") if part.strip()]
    return value


# The list settings carry the splitting with their type, rather than every section running
# one validator on each of its fields: pydantic wraps and inspects a field validator once per
# field it applies to, and the settings model is built by every command (docs/benchmarks.md).
#: A list of words setting (names, hosts, providers).
TextList = Annotated[list[str], BeforeValidator(split_list_string)]
#: A list of whole numbers setting (ports).
NumberList = Annotated[list[int], BeforeValidator(split_list_string)]


class _Section(BaseModel):
    # A model's validator and serializer are built when first used, not when the class is
    # made: settings with nothing set are constructed (loading.py) and need neither, and
    # settings that were set need only the whole model's (docs/benchmarks.md, start-up).
    model_config = ConfigDict(extra="forbid", validate_assignment=True, defer_build=True)
