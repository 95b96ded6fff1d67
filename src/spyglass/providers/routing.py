"""Which provider answers: the weighted spec, the stable choice, and the fallback order.

``search.providers`` and ``fetch.providers`` are one name or ``"searxng:70,duckduckgo:30"``
(unique names, positive integer weights summing to 100). The choice hashes ``capability name
+ invocation id`` with SHA-256, so a retry of the same invocation (and the approved call that
follows a confirmation) reaches the same provider.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Collection, Sequence

from spyglass.errors import InputError

_NAME = re.compile(r"^[a-z][a-z0-9_-]*$")
_WEIGHT = re.compile(r"^[0-9]+$")

Weights = tuple[tuple[str, int], ...]

#: An example spec per setting section, used in messages.
_EXAMPLES = {"search": '"searxng:70,duckduckgo:30"', "fetch": '"direct:70,firecrawl:30"'}


class RoutingError(InputError):
    """The provider setting cannot be used; the message names it and says how to fix it."""


def parse_weights(spec: str, known: Collection[str], *, section: str = "search") -> Weights:
    """The ``(name, weight)`` pairs of ``spec``; a single name weighs 100.

    ``section`` is ``"search"`` or ``"fetch"``: the settings section messages name.
    """
    # Asked several times a turn (every offer of a capability checks its providers), always
    # with the same few specs: each is parsed once. A spec that is refused is not kept.
    return _parse_weights(spec, frozenset(known), section)


@functools.lru_cache(maxsize=64)
def _parse_weights(spec: str, known: frozenset[str], section: str) -> Weights:
    setting = f"{section}.providers"
    example = _EXAMPLES.get(section, _EXAMPLES["search"])
    text = spec.strip()
    if not text:
        raise RoutingError(
            f"no {section} provider is configured; set {setting} (e.g. a single name, or "
            f"{example}) in config.toml or SPYGLASS_{section.upper()}__PROVIDERS"
        )
    parts = [part.strip() for part in text.split(",")]
    pairs: list[tuple[str, int]] = []
    for part in parts:
        name, sep, weight = (piece.strip() for piece in part.partition(":"))
        _check_name(name, known, setting, section)
        if not sep:
            if len(parts) > 1:
                raise RoutingError(
                    f"{setting}: {name} has no weight; with several providers give "
                    f"each one, e.g. {example}"
                )
            pairs.append((name, 100))
            continue
        if not _WEIGHT.match(weight) or int(weight) <= 0:
            raise RoutingError(f"{setting}: the weight of {name} must be a positive whole number")
        pairs.append((name, int(weight)))
    names = [name for name, _ in pairs]
    if len(set(names)) != len(names):
        raise RoutingError(f"{setting} names a provider twice; list each once")
    total = sum(weight for _, weight in pairs)
    if total != 100:
        raise RoutingError(f"{setting} weights add up to {total}; they must add up to 100")
    return tuple(pairs)


def _check_name(name: str, known: Collection[str], setting: str, section: str) -> None:
    if not _NAME.match(name) or name not in known:
        shown = name if _NAME.match(name) and len(name) <= 40 else "an entry"
        raise RoutingError(
            f"{setting}: {shown} is not a {section} provider; use one of {', '.join(sorted(known))}"
        )


def check_fallback(fallback: Sequence[str], known: Collection[str], *, section: str) -> None:
    """Raise :class:`RoutingError` for a fallback entry that names no known provider."""
    for name in fallback:
        _check_name(name, known, f"{section}.fallback", section)


def names(spec: str) -> list[str]:
    """The provider names a spec mentions, in order and without weights (not checked)."""
    return [part.split(":", 1)[0].strip() for part in spec.split(",") if part.strip()]


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
    section: str = "search",
) -> list[str]:
    """The chosen provider followed by the distinct fallback providers, in order."""
    weights = parse_weights(spec, known, section=section)
    check_fallback(fallback, known, section=section)
    order = [choose(weights, capability, invocation_id)]
    order.extend(name for name in dict.fromkeys(fallback) if name not in order)
    return order
