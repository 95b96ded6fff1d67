"""SSRF-safe fetching of public web pages, turned into readable text for a model.

The pieces, each in its own module: :mod:`~spyglass.fetch.guard` (URL rules),
:mod:`~spyglass.fetch.addresses` (which IPs may be dialled), :mod:`~spyglass.fetch.resolver`
and :mod:`~spyglass.fetch.dialler` (the seams), :mod:`~spyglass.fetch.transport` (the pinned
httpx transport), :mod:`~spyglass.fetch.fetcher` (one fetch, redirects and caps),
:mod:`~spyglass.fetch.content` and :mod:`~spyglass.fetch.extract` (text for the model),
:mod:`~spyglass.fetch.paging` (parts).
"""

from spyglass.fetch.addresses import IPAddress, is_allowed, refusal
from spyglass.fetch.content import Document
from spyglass.fetch.dialler import Dialler, SystemDialler
from spyglass.fetch.fetcher import FetchConfig, FetchedPage, Fetcher
from spyglass.fetch.guard import Guard, Target
from spyglass.fetch.paging import Part, part
from spyglass.fetch.resolver import ResolutionError, Resolver, SystemResolver
from spyglass.fetch.services import DIALLER, RESOLVER, SSL_CONTEXT

__all__ = [
    "DIALLER",
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
