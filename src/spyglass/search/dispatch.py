"""One ``web.search``: route to a provider, ask it, fall back if allowed, clean the answer.

This is the only place that puts routing, configuration, the client and cleaning together;
the capability module is a thin layer over :func:`search`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from spyglass.net.errors import last_of_attempts, sent_nothing
from spyglass.providers.clients import ProviderClients
from spyglass.providers.keys import keys_of, redact
from spyglass.providers.routing import RoutingError, names, plan
from spyglass.search import client
from spyglass.search.cleaning import clean_results
from spyglass.search.model import (
    NOT_CONFIGURED,
    UNAVAILABLE,
    ParsedPage,
    SearchFailure,
    SearchQuery,
)
from spyglass.search.provider import Endpoint, Provider
from spyglass.settings import SearchSettings

#: Below this many seconds left, no fallback is started.
MIN_ATTEMPT_SECONDS = 0.5
#: Extra results asked for, so duplicates and filtered hosts do not leave the list short.
HEADROOM = 2


def endpoint_for(provider: Provider, settings: SearchSettings) -> Endpoint:
    """The configured address and key of ``provider``, or ``SEARCH_NOT_CONFIGURED``."""
    # Sections were validated when the settings were loaded.
    section = settings.provider(provider.name)
    key = section.api_key.get_secret_value() if section.api_key is not None else None
    return provider.endpoint(section.base_url or provider.default_base_url, key)


def check(
    settings: SearchSettings,
    providers: Mapping[str, Provider],
    *,
    capability: str,
    invocation_id: str,
) -> list[str]:
    """The providers this invocation may try, each checked for its address and key.

    Needs no network; raises ``SEARCH_NOT_CONFIGURED`` naming the setting to fix, so a search
    that could only fail is refused before anyone is asked to approve it.
    """
    order = _route(settings, providers, capability=capability, invocation_id=invocation_id)
    for name in order:
        endpoint_for(providers[name], settings)
    return order


def _route(
    settings: SearchSettings,
    providers: Mapping[str, Provider],
    *,
    capability: str,
    invocation_id: str,
) -> list[str]:
    """The chosen provider, then the fallbacks; ``SEARCH_NOT_CONFIGURED`` for a bad setting."""
    try:
        return plan(
            settings.providers,
            settings.fallback,
            providers.keys(),
            capability=capability,
            invocation_id=invocation_id,
            section="search",
        )
    except RoutingError as problem:
        raise SearchFailure(NOT_CONFIGURED, str(problem)) from None


async def search(
    query: SearchQuery,
    settings: SearchSettings,
    providers: Mapping[str, Provider],
    *,
    capability: str,
    invocation_id: str,
    report: Callable[[str], None],
    clients: ProviderClients | None = None,
) -> dict[str, Any]:
    """The ``web.search`` result for ``query``; raises :class:`SearchFailure` otherwise.

    ``report`` is told each provider as it is tried, so the audit names the one that ran;
    ``clients`` are the runtime's provider clients (a new one per exchange without).
    """
    secrets = keys_of(settings.provider_sections().values())
    capped: list[str] = []
    if query.count > settings.max_results:
        capped.append(
            f"the owner limits a search to {settings.max_results} results "
            f"(search.max_results); {query.count} were asked for"
        )
        query = replace(query, count=settings.max_results)
    try:
        order = _route(settings, providers, capability=capability, invocation_id=invocation_id)
        result = await _attempts(query, settings, providers, order, report, clients)
    except SearchFailure as failure:
        message = failure.message + _self_hosted_hint(failure, settings)
        raise SearchFailure(
            failure.code,
            redact(message, secrets),
            retryable=failure.retryable,
            reason=failure.reason,
        ) from None
    if capped:
        result["notes"] = capped + result.get("notes", [])
    # A provider that echoes the key back (in an error text or a result) must not leak it.
    if "notes" in result:
        result["notes"] = [redact(note, secrets) for note in result["notes"]]
    for item in result["results"]:
        for field in ("title", "url", "snippet"):
            item[field] = redact(item[field], secrets)
    return result


def _self_hosted_hint(failure: SearchFailure, settings: SearchSettings) -> str:
    """Where to go when the configured services cannot be reached: a SearXNG of the owner's
    own, unless one is configured already (then its own message names its address)."""
    if failure.code != UNAVAILABLE or "searxng" in {*names(settings.providers), *settings.fallback}:
        return ""
    return (
        ". To search through a SearXNG of your own instead, set search.providers = "
        '"searxng" and search.searxng.base_url (docs/search.md)'
    )


async def _attempts(
    query: SearchQuery,
    settings: SearchSettings,
    providers: Mapping[str, Provider],
    order: list[str],
    report: Callable[[str], None],
    clients: ProviderClients | None,
) -> dict[str, Any]:
    deadline = time.monotonic() + settings.timeout_seconds
    first: SearchFailure | None = None
    fallbacks: list[str] = []
    # Whether any attempt may have reached its provider: only then did the query leave.
    reached = False
    for position, name in enumerate(order):
        provider = providers[name]
        remaining = deadline - time.monotonic()
        if position and remaining < MIN_ATTEMPT_SECONDS:
            fallbacks.append(f"{name} not tried (no time left)")
            break
        try:
            if position == 0:
                report(name)
            endpoint = endpoint_for(provider, settings)
            if position:
                report(name)
            asked = replace(query, count=min(provider.max_count, query.count + HEADROOM))
            page = await client.ask(provider, endpoint, asked, timeout=remaining, clients=clients)
        except SearchFailure as failure:
            reached = reached or not sent_nothing(failure)
            if position == 0:
                # Without an explicit fallback list, or for a failure that a retry cannot
                # fix, there is no silent failover.
                if not failure.retryable or len(order) == 1:
                    raise
                first = failure
            else:
                fallbacks.append(f"{name}: {failure.message}")
            continue
        return _result(query, provider, page, position, first, fallbacks, settings.snippet_chars)
    assert first is not None
    detail = f" Fallback providers failed too: {'; '.join(fallbacks)}" if fallbacks else ""
    raise last_of_attempts(
        SearchFailure(
            first.code, first.message + detail, retryable=first.retryable, reason=first.reason
        ),
        reached=reached,
    )


def _result(
    query: SearchQuery,
    provider: Provider,
    page: ParsedPage,
    position: int,
    first: SearchFailure | None,
    fallbacks: list[str],
    snippet_chars: int,
) -> dict[str, Any]:
    results = clean_results(page.results, query, snippet_chars=snippet_chars)
    notes: list[str] = []
    if position and first is not None:
        notes.append(
            f"answered by fallback provider {provider.name}; the first choice failed: "
            f"{first.message}"
        )
        notes.extend(f"fallback {entry}" for entry in fallbacks)
    notes.extend(page.notes)
    if query.time_range and not provider.supports_time_range:
        notes.append(f"{provider.name} cannot limit results by date; time_range was not applied")
    result: dict[str, Any] = {
        "query": query.text,
        "provider": provider.name,
        "results": results,
        "result_count": len(results),
        "retrieved_at": datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
    }
    if page.partial:
        result["partial"] = True
    if notes:
        result["notes"] = notes
    return result
