"""What a capability is: a fixed, typed, bounded entry whose confirmation rule is derived."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from spyglass.core.advertised import advertised
from spyglass.errors import DefinitionError

if TYPE_CHECKING:
    from spyglass.core.context import InvocationContext
    from spyglass.core.outcome import Notice
    from spyglass.settings import Settings

JSON = dict[str, Any]

NAME_PATTERN = re.compile(r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)*(?:\.[a-z][a-z0-9]*(?:_[a-z0-9]+)*)+$")
WIRE_PATTERN = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


class SideEffect(StrEnum):
    READ_ONLY = "read_only"
    MUTATING = "mutating"


class Network(StrEnum):
    LOCAL = "local"
    EXTERNAL = "external"


class Confirmation(StrEnum):
    AUTOMATIC = "automatic"
    REQUIRED = "required"


#: The only place a confirmation rule is decided. A capability cannot declare its own.
CONFIRMATION_TABLE: Mapping[tuple[SideEffect, Network], Confirmation] = {
    (SideEffect.READ_ONLY, Network.LOCAL): Confirmation.AUTOMATIC,
    (SideEffect.READ_ONLY, Network.EXTERNAL): Confirmation.REQUIRED,
    (SideEffect.MUTATING, Network.LOCAL): Confirmation.REQUIRED,
    (SideEffect.MUTATING, Network.EXTERNAL): Confirmation.REQUIRED,
}


def to_wire_name(name: str) -> str:
    """``web.search`` → ``web_search``: the name models and MCP hosts see."""
    return name.replace(".", "_")


@dataclass(frozen=True)
class Bounds:
    """Limits the executor enforces around one invocation."""

    timeout_seconds: float
    max_result_bytes: int = 65536
    max_invocations_per_turn: int = 1

    def __post_init__(self) -> None:
        if self.timeout_seconds <= 0 or self.max_result_bytes <= 0:
            raise DefinitionError("bounds must be positive")
        if self.max_invocations_per_turn < 1:
            raise DefinitionError("max_invocations_per_turn must be at least 1")


Handler = Callable[["InvocationContext"], Awaitable[JSON]]
#: Runs before confirmation: the checks that need no network. Raises ``CapabilityError``
#: (status ``rejected``) to refuse the call before anyone is asked; returns what the person
#: approving it should see. Must not do I/O beyond reading local state.
Precheck = Callable[["InvocationContext"], Awaitable[Sequence["Notice"]]]
#: What stops a capability from running under these settings (a provider without its key),
#: as messages naming the setting to fix; empty when it can run. Reads settings only.
Readiness = Callable[["Settings"], Sequence[str]]
#: The description for these settings, when part of it depends on them (the search
#: provider's query operators).
Describer = Callable[["Settings"], str]
#: Why a call with these precheck notices is unusual, as short reasons for the person
#: ("this address did not come from this conversation"); empty when nothing is. Asked by
#: the ``flagged`` approval rule (:mod:`spyglass.core.flagged`): a call with a reason asks.
Unusual = Callable[[Sequence["Notice"]], Sequence[str]]


@dataclass(frozen=True)
class Capability:
    """One registry entry. ``confirmation`` is derived from the table, never passed in."""

    name: str
    version: int
    title: str
    description: str
    argument_schema: JSON
    result_schema: JSON
    side_effect: SideEffect
    network: Network
    bounds: Bounds
    handler: Handler = field(repr=False, compare=False)
    policy_key: str | None = None
    #: Checks that need no network, run on every call before confirmation (and again on the
    #: approved call, since settings may have changed meanwhile).
    precheck: Precheck | None = field(default=None, repr=False, compare=False)
    #: Dotted settings key whose value replaces ``bounds.timeout_seconds`` (plus a grace period
    #: so the capability's own deadline fires first with a precise message).
    timeout_setting: str | None = None
    #: Configuration problems that keep the capability from being offered or run.
    readiness: Readiness | None = field(default=None, repr=False, compare=False)
    #: Builds the description from the settings; ``description`` is the settings-free form.
    describer: Describer | None = field(default=None, repr=False, compare=False)
    #: Its key in ``[approvals]`` and the owner's policy (``search``), when the owner may let
    #: its calls run without a card under the ``flagged`` rule; ``None``: every call asks.
    approval_key: str | None = None
    #: What makes one of its calls unusual enough to ask under the ``flagged`` rule (the
    #: privacy check's findings always do). ``None`` with an ``approval_key``: nothing but
    #: the findings does.
    unusual: Unusual | None = field(default=None, repr=False, compare=False)
    confirmation: Confirmation = field(init=False)
    #: What MCP hosts and models are shown of ``argument_schema`` (spyglass.core.advertised);
    #: validation enforces the whole schema.
    advertised_arguments: JSON = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not NAME_PATTERN.match(self.name):
            raise DefinitionError(f"capability name {self.name!r} must be dotted lower_snake")
        if not WIRE_PATTERN.match(self.wire_name):
            raise DefinitionError(f"wire name {self.wire_name!r} is not a valid tool name")
        if self.version < 1:
            raise DefinitionError(f"{self.name}: version must be a positive integer")
        for label, schema in (("argument", self.argument_schema), ("result", self.result_schema)):
            if schema.get("type") != "object" or schema.get("additionalProperties") is not False:
                raise DefinitionError(
                    f"{self.name}: {label} schema must be an object with additionalProperties false"
                )
        if self.network is Network.EXTERNAL and self.policy_key is None:
            raise DefinitionError(f"{self.name}: an external capability needs a policy_key")
        object.__setattr__(
            self, "confirmation", CONFIRMATION_TABLE[(self.side_effect, self.network)]
        )
        object.__setattr__(self, "advertised_arguments", advertised(self.argument_schema))

    @property
    def wire_name(self) -> str:
        return to_wire_name(self.name)

    @property
    def requires_confirmation(self) -> bool:
        return self.confirmation is Confirmation.REQUIRED

    def problems(self, settings: Settings) -> list[str]:
        """What keeps this capability from running under ``settings``; empty when ready."""
        return list(self.readiness(settings)) if self.readiness is not None else []

    def description_for(self, settings: Settings | None) -> str:
        """The description a model or MCP host sees under ``settings``."""
        if settings is None or self.describer is None:
            return self.description
        return self.describer(settings)

    def describe(self) -> JSON:
        """Plain data about the capability, for ``spyglass capabilities`` and the HTTP API."""
        return {
            "name": self.name,
            "wire_name": self.wire_name,
            "version": self.version,
            "title": self.title,
            "description": self.description,
            "side_effect": self.side_effect.value,
            "network": self.network.value,
            "confirmation": self.confirmation.value,
            "policy_key": self.policy_key,
            "bounds": {
                "timeout_seconds": self.bounds.timeout_seconds,
                "max_result_bytes": self.bounds.max_result_bytes,
                "max_invocations_per_turn": self.bounds.max_invocations_per_turn,
            },
            "argument_schema": self.argument_schema,
            "result_schema": self.result_schema,
        }

    def openai_tool(self, settings: Settings | None = None) -> JSON:
        """The OpenAI chat-completions ``tools`` entry: the advertised part of the schema."""
        return {
            "type": "function",
            "function": {
                "name": self.wire_name,
                "description": self.description_for(settings),
                "parameters": self.advertised_arguments,
            },
        }
