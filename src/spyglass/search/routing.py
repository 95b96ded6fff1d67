"""Which provider answers: the weighted spec, the stable choice, and the fallback order.

``search.providers`` is one name or ``"searxng:70,duckduckgo:30"`` (unique names, positive
integer weights summing to 100). The choice hashes ``capability name + invocation id`` with
SHA-256, so a retry of the same invocation reaches the same provider.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Collection, Sequence

from spyglass.search.model import NOT_CONFIGURED, SearchFailure

_NAME = re.compile(r"^[a-z][a-z0-9_-]*$")
_WEIGHT = re.compile(r"^[0-9]+$")

Weights = tuple[tuple[str, int], ...]


def _not_configured(problem: str) -> SearchFailure:
    return SearchFailure(NOT_CONFIGURED, problem)


def parse_weights(spec: str, known: Collection[str]) -> Weights:
    """The ``(name, weight)`` pairs of ``spec``; a single name weighs 100.

    Raises ``SEARCH_NOT_CONFIGURED`` saying what is wrong with the setting and how to fix it.
    """
    text = spec.strip()
    if not text:
        raise _not_configured(
            'no search provider is configured; set search.providers (e.g. "duckduckgo", or '
            '"searxng:70,duckduckgo:30") in config.toml or SPYGLASS_SEARCH__PROVIDERS'
        )
    parts = [part.strip() for part in text.split(",")]
    pairs: list[tuple[str, int]] = []
    for part in parts:
        name, sep, weight = (piece.strip() for piece in part.partition(":"))
        _check_name(name, known, "search.providers")
        if not sep:
            if len(parts) > 1:
                raise _not_configured(
                    f"search.providers: {name} has no weight; with several providers give "
                    'each one, e.g. "searxng:70,duckduckgo:30"'
                )
            pairs.append((name, 100))
            continue
        if not _WEIGHT.match(weight) or int(weight) <= 0:
            raise _not_configured(
                f"search.providers: the weight of {name} must be a positive whole number"
            )
        pairs.append((name, int(weight)))
    names = [name for name, _ in pairs]
    if len(set(names)) != len(names):
        raise _not_configured("search.providers names a provider twice; list each once")
    total = sum(weight for _, weight in pairs)
    if total != 100:
        raise _not_configured(
            f"search.providers weights add up to {total}; they must add up to 100"
        )
    return tuple(pairs)


def _check_name(name: str, known: Collection[str], setting: str) -> None:
    if not _NAME.match(name) or name not in known:
        shown = name if _NAME.match(name) and len(name) <= 40 else "an entry"
        raise _not_configured(
            f"{setting}: {shown} is not a search provider; use one of {', '.join(sorted(known))}"
        )


def choose(weights: Weights, capability: str, invocation_id: str) -> str:
    """The provider for this invocation: the same id always gives the same answer."""
    digest = hashlib.sha256(f"{capability}{invocation_id}".encode()).digest()
    point = int.from_bytes(digest[:8], "big") % 100
    for name, weight in weights:
        if point < weight:
            return name
        point -= weight
    return weights[-1][0]


def plan(
    spec: str,
    fallback: Sequence[str],
    known: Collection[str],
    *,
    capability: str,
    invocation_id: str,
) -> list[str]:
    """The chosen provider followed by the distinct fallback providers, in order."""
    weights = parse_weights(spec, known)
    for name in fallback:
        _check_name(name, known, "search.fallback")
    order = [choose(weights, capability, invocation_id)]
    order.extend(name for name in dict.fromkeys(fallback) if name not in order)
    return order
