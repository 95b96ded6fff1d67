"""The plain data that flows between the capability, the router, the client and adapters."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from spyglass.providers import exchange
from spyglass.providers.exchange import Failures, ProviderFailure

TimeRange = Literal["day", "week", "month", "year"]

#: The search error codes (docs/search.md); each failure carries one of these.
NOT_CONFIGURED = "SEARCH_" + exchange.NOT_CONFIGURED
AUTH_FAILED = "SEARCH_" + exchange.AUTH_FAILED
QUOTA_EXCEEDED = "SEARCH_" + exchange.QUOTA_EXCEEDED
RATE_LIMITED = "SEARCH_" + exchange.RATE_LIMITED
UNAVAILABLE = "SEARCH_" + exchange.UNAVAILABLE
REJECTED = "SEARCH_" + exchange.REJECTED
INVALID_OUTPUT = "SEARCH_" + exchange.INVALID_OUTPUT


@dataclass(frozen=True)
class SearchQuery:
    """What the person or model asked for, already validated."""

    text: str
    count: int = 5
    time_range: TimeRange | None = None
    include_domains: tuple[str, ...] = ()
    exclude_domains: tuple[str, ...] = ()


@dataclass(frozen=True)
class RawResult:
    """One result as the provider gave it, before cleaning (may hold HTML and entities)."""

    title: str
    url: str
    snippet: str


@dataclass
class ParsedPage:
    """What an adapter got out of one successful response."""

    results: list[RawResult]
    partial: bool = False
    notes: list[str] = field(default_factory=list)


class SearchFailure(ProviderFailure):
    """A provider could not answer; ``code`` is one of the ``SEARCH_*`` codes above."""


#: How the shared exchange names search failures.
FAILURES = Failures("search", SearchFailure)
