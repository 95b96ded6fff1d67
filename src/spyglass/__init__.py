"""Spyglass: web search and fetch for a local AI assistant, with the owner in control.

The public API. Names are loaded on first use so that ``import spyglass.core`` stays free of
the web, CLI and MCP libraries the capabilities and front ends need::

    from spyglass import build_runtime

    runtime = build_runtime()
    outcome = runtime.executor.invoke("system.health", None, {}, channel="script")
    print(outcome.to_json())
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from spyglass.version import __version__

if TYPE_CHECKING:
    from spyglass.capabilities import BUILTIN
    from spyglass.core.capability import Bounds, Capability, Network, SideEffect
    from spyglass.core.context import InvocationContext, SeamKey, Seams, Turn
    from spyglass.core.executor import Executor
    from spyglass.core.outcome import Code, ErrorInfo, Outcome, PendingConfirmation
    from spyglass.core.registry import Registry
    from spyglass.errors import (
        CapabilityError,
        ConfigError,
        DefinitionError,
        SpyglassError,
    )
    from spyglass.paths import Paths
    from spyglass.runtime import Runtime, build_runtime
    from spyglass.settings import Settings, load_settings

_EXPORTS = {
    "BUILTIN": "spyglass.capabilities",
    "Bounds": "spyglass.core.capability",
    "Capability": "spyglass.core.capability",
    "Network": "spyglass.core.capability",
    "SideEffect": "spyglass.core.capability",
    "InvocationContext": "spyglass.core.context",
    "SeamKey": "spyglass.core.context",
    "Seams": "spyglass.core.context",
    "Turn": "spyglass.core.context",
    "Executor": "spyglass.core.executor",
    "Code": "spyglass.core.outcome",
    "ErrorInfo": "spyglass.core.outcome",
    "Outcome": "spyglass.core.outcome",
    "PendingConfirmation": "spyglass.core.outcome",
    "Registry": "spyglass.core.registry",
    "CapabilityError": "spyglass.errors",
    "ConfigError": "spyglass.errors",
    "DefinitionError": "spyglass.errors",
    "SpyglassError": "spyglass.errors",
    "Paths": "spyglass.paths",
    "Runtime": "spyglass.runtime",
    "build_runtime": "spyglass.runtime",
    "Settings": "spyglass.settings",
    "load_settings": "spyglass.settings",
}

__all__ = [
    "BUILTIN",
    "Bounds",
    "Capability",
    "CapabilityError",
    "Code",
    "ConfigError",
    "DefinitionError",
    "ErrorInfo",
    "Executor",
    "InvocationContext",
    "Network",
    "Outcome",
    "Paths",
    "PendingConfirmation",
    "Registry",
    "Runtime",
    "SeamKey",
    "Seams",
    "Settings",
    "SideEffect",
    "SpyglassError",
    "Turn",
    "__version__",
    "build_runtime",
    "load_settings",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'spyglass' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
