"""The fixed registry: built once from code, looked up by exact name and version."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from spyglass.core.capability import Capability
from spyglass.errors import DefinitionError


class Registry:
    """An immutable set of capabilities, checked for clashes when built."""

    def __init__(self, capabilities: Iterable[Capability]) -> None:
        by_key: dict[tuple[str, int], Capability] = {}
        wire: dict[str, str] = {}
        for capability in capabilities:
            key = (capability.name, capability.version)
            if key in by_key:
                raise DefinitionError(
                    f"capability {capability.name} v{capability.version} is registered twice"
                )
            owner = wire.setdefault(capability.wire_name, capability.name)
            if owner != capability.name:
                raise DefinitionError(
                    f"{capability.name} and {owner} share the wire name {capability.wire_name}"
                )
            by_key[key] = capability
        self._by_key = by_key
        self._by_wire = wire

    def __iter__(self) -> Iterator[Capability]:
        return iter(sorted(self._by_key.values(), key=lambda c: (c.name, c.version)))

    def __len__(self) -> int:
        return len(self._by_key)

    def get(self, name: str, version: int | None = None) -> Capability | None:
        """The exact ``name`` and ``version``; ``None`` version means the newest."""
        if version is None:
            versions = [v for (n, v) in self._by_key if n == name]
            return self._by_key[(name, max(versions))] if versions else None
        return self._by_key.get((name, version))

    def name_for_wire(self, wire_name: str) -> str | None:
        """``web_search`` → ``web.search`` for the capabilities in this registry."""
        return self._by_wire.get(wire_name)

    def latest(self) -> list[Capability]:
        """The newest version of each capability, sorted by name."""
        names = sorted({name for name, _ in self._by_key})
        return [c for c in (self.get(name) for name in names) if c is not None]
