"""The built-in capabilities. This list *is* the registry: nothing is loaded at run time."""

from __future__ import annotations

from spyglass.capabilities import fetch, health, search
from spyglass.core.registry import Registry

BUILTIN = Registry(
    [
        health.CAPABILITY,
        fetch.CAPABILITY,
        search.CAPABILITY,
    ]
)
