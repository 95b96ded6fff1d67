"""Whether the configured providers can work at all, decided from settings alone.

A keyed provider without its key, SearXNG without ``base_url`` or a weights spec that does
not add up would only be discovered after the owner approved a call. These functions find
them when the settings are loaded: ``spyglass serve`` prints them at start,
``/api/v1/health`` and ``system.health`` list them, and a capability with a problem is not
offered to models or MCP hosts (:func:`spyglass.core.policy.capability_allowed`).
"""

from __future__ import annotations

from spyglass.errors import CapabilityError
from spyglass.providers.routing import RoutingError, check_fallback, names, parse_weights
from spyglass.search.dispatch import endpoint_for as search_endpoint
from spyglass.search.providers import PROVIDERS
from spyglass.settings import Settings


def _named(spec: str, fallback: list[str]) -> list[str]:
    return list(dict.fromkeys([*names(spec), *fallback]))


def search_problems(settings: Settings) -> list[str]:
    """Why ``web.search`` cannot run as configured; empty when it can."""
    search = settings.search
    try:
        parse_weights(search.providers, PROVIDERS.keys(), section="search")
        check_fallback(search.fallback, PROVIDERS.keys(), section="search")
    except RoutingError as problem:
        return [str(problem)]
    found = []
    for name in _named(search.providers, search.fallback):
        try:
            search_endpoint(PROVIDERS[name], search)
        except CapabilityError as problem:
            found.append(problem.message)
    return found


def fetch_problems(settings: Settings) -> list[str]:
    """Why ``web.fetch`` cannot run as configured; empty when it can."""
    # The hosted readers (with the fetch guard their targets pass) load here, not with the
    # search check: an MCP host waits for the tool list these checks decide.
    from spyglass.fetch.hosted import READERS
    from spyglass.fetch.hosted.dispatch import NAMES as FETCH_NAMES
    from spyglass.fetch.hosted.dispatch import endpoint_for as reader_endpoint
    from spyglass.fetch.hosted.reader import DIRECT

    fetch = settings.fetch
    try:
        parse_weights(fetch.providers, FETCH_NAMES, section="fetch")
        check_fallback(fetch.fallback, FETCH_NAMES, section="fetch")
    except RoutingError as problem:
        return [str(problem)]
    found = []
    for name in _named(fetch.providers, fetch.fallback):
        if name == DIRECT:
            continue
        try:
            reader_endpoint(READERS[name], settings)
        except CapabilityError as problem:
            found.append(problem.message)
    return found
