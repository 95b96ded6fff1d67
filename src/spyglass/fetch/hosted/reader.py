"""The adapter interface every hosted reader (Tavily Extract, Firecrawl Scrape, ...) implements.

Like a search adapter, a reader never does I/O: it turns a URL into a
:class:`~spyglass.providers.exchange.ProviderRequest` and a response body into a
:class:`HostedPage` (or a :class:`FetchFailure`). Sending, the deadline, the size bound,
generic status mapping, routing and post-processing are shared code.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from spyglass import jsontext
from spyglass.providers.exchange import (
    INVALID_OUTPUT,
    Endpoint,
    Failures,
    ProviderFailure,
    ProviderRequest,
)
from spyglass.search.cleaning import plain_text

#: The name of "Spyglass reads the page itself" in ``fetch.providers``.
DIRECT = "direct"
#: How much of a provider's own explanation of an error may reach a message.
EXPLANATION_CHARS = 300


class FetchFailure(ProviderFailure):
    """A hosted reader could not deliver the page; ``code`` is one of the ``FETCH_*`` kinds."""


FAILURES = Failures("fetch", FetchFailure)


@dataclass(frozen=True)
class HostedPage:
    """What a reader got out of one successful response, before post-processing."""

    #: The address the provider says it read (Firecrawl's ``sourceURL``); may differ.
    source_url: str | None
    title: str | None
    content: str
    #: ``html`` content goes through the same extraction as a directly fetched page.
    format: Literal["markdown", "html", "text"] = "markdown"


class Reader(ABC):
    """One hosted reader. Subclasses set the class attributes and the two methods."""

    #: The name in ``fetch.providers``, results, notices and the audit log.
    name: ClassVar[str]
    #: How people see it: "Firecrawl will fetch this page for you".
    display_name: ClassVar[str]
    #: The public endpoint; ``fetch.<name>.base_url`` (or ``search.<name>.base_url``) overrides.
    default_base_url: ClassVar[str]
    #: Whether an API key is required.
    needs_key: ClassVar[bool] = True

    @abstractmethod
    def build_request(self, url: str, endpoint: Endpoint) -> ProviderRequest:
        """The request that asks this reader for the page at ``url``."""

    @abstractmethod
    def parse(self, body: bytes, url: str) -> HostedPage:
        """The page from a 2xx response body; raises :class:`FetchFailure` when unusable."""

    def explain_error(self, status: int, body: bytes) -> FetchFailure | None:
        """A reader-specific failure for this response, or ``None`` for the generic rules.

        Called for every response before :meth:`parse`, so a reader can also recognise
        failures that arrive with a 2xx status.
        """
        return None

    def max_bytes(self, page_cap: int) -> int:
        """The response bound for this reader, given the owner's page cap in bytes."""
        return page_cap

    # -- helpers for adapters ----------------------------------------------------------------

    def load_json(self, body: bytes) -> Any:
        """The decoded JSON document, or ``FETCH_INVALID_OUTPUT`` naming this reader."""
        try:
            return jsontext.loads(body)
        except (UnicodeDecodeError, ValueError):
            raise self.failure(
                INVALID_OUTPUT,
                f"{self.name} answered with something that is not JSON; "
                f"check that fetch.{self.name}.base_url points at its API",
            ) from None

    def invalid(self, what: str) -> FetchFailure:
        """``FETCH_INVALID_OUTPUT`` for a response that lacks ``what``."""
        return self.failure(
            INVALID_OUTPUT,
            f"{self.name} answered without {what}; its API may have changed or "
            f"fetch.{self.name}.base_url points at something else",
        )

    def failure(self, kind: str, message: str, *, retryable: bool = False) -> FetchFailure:
        failure = FAILURES(kind, message, retryable=retryable)
        assert isinstance(failure, FetchFailure)
        return failure


def explanation(text: object) -> str:
    """A provider's own error text as plain text of at most 300 characters."""
    if not isinstance(text, str):
        return ""
    return plain_text(text)[:EXPLANATION_CHARS]


def said(text: str) -> str:
    """`` (tavily said: …)``-style suffix, or ``""`` when there is nothing to say."""
    return f' (it said: "{text}")' if text else ""
