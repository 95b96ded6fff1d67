"""The plain data that flows between the capability, the router, the client and adapters."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from spyglass.errors import CapabilityError

TimeRange = Literal["day", "week", "month", "year"]

#: The error codes of design §7; each failure carries one of these.
NOT_CONFIGURED = "SEARCH_NOT_CONFIGURED"
AUTH_FAILED = "SEARCH_AUTH_FAILED"
QUOTA_EXCEEDED = "SEARCH_QUOTA_EXCEEDED"
RATE_LIMITED = "SEARCH_RATE_LIMITED"
UNAVAILABLE = "SEARCH_PROVIDER_UNAVAILABLE"
REJECTED = "SEARCH_PROVIDER_REJECTED"
INVALID_OUTPUT = "SEARCH_INVALID_OUTPUT"


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


class SearchFailure(CapabilityError):
    """A provider could not answer; ``code`` is one of the ``SEARCH_*`` codes above."""

    def __init__(self, code: str, message: str, *, retryable: bool = False) -> None:
        # Missing configuration stops a search before any connection: a refusal.
        status: Literal["failed", "rejected"] = "rejected" if code == NOT_CONFIGURED else "failed"
        super().__init__(code, message, retryable=retryable, status=status)
