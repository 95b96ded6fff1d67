"""The built-in capabilities. This list *is* the registry: nothing is loaded at run time."""

from __future__ import annotations

import importlib

from spyglass.capabilities import fetch, health, search
from spyglass.core.registry import Registry

BUILTIN = Registry(
    [
        health.CAPABILITY,
        fetch.CAPABILITY,
        search.CAPABILITY,
    ]
)

#: What the built-in capabilities import on their first check or call (routes, the fetcher
#: and its HTTP client, the privacy detectors). A command loads them only when it uses them;
#: a long-running service loads them at start, so its first call is as quick as the next.
IMPLEMENTATIONS = (
    "spyglass.fetch.hosted.dispatch",
    "spyglass.fetch.fetcher",
    "spyglass.net.seams",
    "spyglass.privacy.check",
    "spyglass.privacy.provenance",
    "spyglass.search.dispatch",
)


def preload() -> None:
    """Import every module in :data:`IMPLEMENTATIONS` now rather than on first use."""
    for name in IMPLEMENTATIONS:
        importlib.import_module(name)
