"""SSRF-safe fetching of public web pages, turned into readable text for a model.

The pieces, each in its own module: :mod:`~spyglass.fetch.guard` (URL rules),
:mod:`~spyglass.fetch.addresses` (which IPs may be dialled), :mod:`~spyglass.fetch.resolver`
and :mod:`~spyglass.fetch.dialler` (the seams), :mod:`~spyglass.fetch.transport` (the pinned
httpx transport), :mod:`~spyglass.fetch.fetcher` (one fetch, redirects and caps),
:mod:`~spyglass.fetch.content` and :mod:`~spyglass.fetch.extract` (text for the model),
:mod:`~spyglass.fetch.paging` (parts).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from spyglass.fetch.addresses import IPAddress, is_allowed, refusal
    from spyglass.fetch.content import Document
    from spyglass.fetch.dialler import Dialler, SystemDialler
    from spyglass.fetch.fetcher import FetchConfig, FetchedPage, Fetcher
    from spyglass.fetch.guard import Guard, Target
    from spyglass.fetch.paging import Part, part
    from spyglass.fetch.resolver import ResolutionError, Resolver, SystemResolver
    from spyglass.fetch.seams import DIALLER, RESOLVER, SSL_CONTEXT

#: The longest URL ``web.fetch`` takes (its argument schema and the guard). Kept here, not in
#: the guard, so the capability's schema does not import the guard's rules and tables: a
#: call refused before its URL is looked at never needs them (docs/benchmarks.md).
MAX_URL_CHARS = 2048

#: Where each public name lives. Imported on first use (PEP 562), so importing one light
#: module of this package (the guard, paging) does not load httpx and the HTML extractor.
_HOMES = {
    "IPAddress": "addresses",
    "is_allowed": "addresses",
    "refusal": "addresses",
    "Document": "content",
    "Dialler": "dialler",
    "SystemDialler": "dialler",
    "FetchConfig": "fetcher",
    "FetchedPage": "fetcher",
    "Fetcher": "fetcher",
    "Guard": "guard",
    "Target": "guard",
    "Part": "paging",
    "part": "paging",
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
    "Document",
    "FetchConfig",
    "FetchedPage",
    "Fetcher",
    "Guard",
    "IPAddress",
    "Part",
    "ResolutionError",
    "Resolver",
    "SystemDialler",
    "SystemResolver",
    "Target",
    "is_allowed",
    "part",
    "refusal",
]
