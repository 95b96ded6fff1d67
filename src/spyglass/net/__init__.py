"""Everything that decides and makes a connection to the web, and nothing that reads a page.

:mod:`~spyglass.net.guard` (the URL rules), :mod:`~spyglass.net.addresses` (which IPs may be
dialled), :mod:`~spyglass.net.private` (the owner's own network), :mod:`~spyglass.net.hostnames`
(host-name rules), :mod:`~spyglass.net.resolver` and :mod:`~spyglass.net.dialler` (the seams,
with their defaults in :mod:`~spyglass.net.seams`), :mod:`~spyglass.net.transport` (the httpx
transport pinned to the checked address), :mod:`~spyglass.net.body` (capped body reads),
:mod:`~spyglass.net.redirects`, :mod:`~spyglass.net.faults` (what a network failure means) and
:mod:`~spyglass.net.errors` (the refusals a model can act on).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from spyglass.net.addresses import IPAddress, is_allowed, refusal
    from spyglass.net.dialler import Dialler, SystemDialler
    from spyglass.net.guard import Guard, Target
    from spyglass.net.resolver import ResolutionError, Resolver, SystemResolver
    from spyglass.net.seams import DIALLER, RESOLVER, SSL_CONTEXT

#: The longest URL ``web.fetch`` takes (its argument schema and the guard). Kept here, not in
#: the guard, so the capability's schema does not import the guard's rules and tables: a
#: call refused before its URL is looked at never needs them.
MAX_URL_CHARS = 2048

#: Where each public name lives. Imported on first use (PEP 562), so the settings, which need
#: only the host-name rules, do not load httpx with this package.
_HOMES = {
    "IPAddress": "addresses",
    "is_allowed": "addresses",
    "refusal": "addresses",
    "Dialler": "dialler",
    "SystemDialler": "dialler",
    "Guard": "guard",
    "Target": "guard",
    "ResolutionError": "resolver",
    "Resolver": "resolver",
    "SystemResolver": "resolver",
    "DIALLER": "seams",
    "RESOLVER": "seams",
    "SSL_CONTEXT": "seams",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{home}"), name)


__all__ = [
    "DIALLER",
    "MAX_URL_CHARS",
    "RESOLVER",
    "SSL_CONTEXT",
    "Dialler",
    "Guard",
    "IPAddress",
    "ResolutionError",
    "Resolver",
    "SystemDialler",
    "SystemResolver",
    "Target",
    "is_allowed",
    "refusal",
]
