"""Which capabilities MCP hosts see, and their MCP tool definitions.

Built from the registry, not from a fixed list: every external capability becomes a tool
with its own wire name, title, description and input schema, so a new or changed capability
reaches MCP hosts without code here changing. Which of them a client is offered right now is
the owner's policy (:func:`spyglass.core.policy.capability_allowed`).

No tool declares an ``outputSchema``: a declared schema obliges the server to send
``structuredContent``, and hosts differ in what they pass on to the model (some only the
structured JSON, some both it and the text). Web text there would reach the model outside the
untrusted envelope, so results are the enveloped text block alone (docs/decisions.md).
"""

from __future__ import annotations

import mcp.types as types

from spyglass.core.actor import Actor
from spyglass.core.capability import Capability, Network, SideEffect
from spyglass.core.policy import PolicySource, capability_allowed
from spyglass.core.registry import Registry
from spyglass.settings import Settings


def exposed(registry: Registry, settings: Settings | None = None) -> list[Capability]:
    """The newest version of each external capability, sorted by name (a stable order).

    Given ``settings``, a capability whose configuration cannot work is left out.
    """
    return [
        c
        for c in registry.latest()
        if c.network is Network.EXTERNAL and not (settings is not None and c.problems(settings))
    ]


def tool_for(capability: Capability, settings: Settings | None = None) -> types.Tool:
    """The MCP ``Tool`` for one capability: its advertised input schema, honest annotations."""
    return types.Tool(
        name=capability.wire_name,
        title=capability.title,
        description=capability.description_for(settings),
        input_schema=capability.advertised_arguments,
        annotations=types.ToolAnnotations(
            title=capability.title,
            read_only_hint=capability.side_effect is SideEffect.READ_ONLY,
            open_world_hint=capability.network is Network.EXTERNAL,
        ),
    )


class ToolTable:
    """Wire name → capability for the tools this server offers."""

    def __init__(self, registry: Registry, settings: Settings | None = None) -> None:
        self.capabilities = exposed(registry, settings)
        self._by_wire = {c.wire_name: c for c in self.capabilities}
        self.tools = [tool_for(c, settings) for c in self.capabilities]

    def offered(self, policy: PolicySource, actor: Actor | None = None) -> list[types.Tool]:
        """The tools the owner's switches (and, for a person, their permissions) allow right
        now, in table order."""
        return [
            tool
            for capability, tool in zip(self.capabilities, self.tools, strict=True)
            if capability_allowed(policy, capability, actor=actor)
        ]

    def offered_names(self, policy: PolicySource, actor: Actor | None = None) -> tuple[str, ...]:
        """Wire names of :meth:`offered`: what a change notification compares."""
        return tuple(tool.name for tool in self.offered(policy, actor))

    def get(self, wire_name: str) -> Capability | None:
        return self._by_wire.get(wire_name)

    def input_schema(self, wire_name: str) -> dict[str, object] | None:
        capability = self.get(wire_name)
        return capability.advertised_arguments if capability else None

    @property
    def names(self) -> list[str]:
        return [c.wire_name for c in self.capabilities]
