"""The interface every hosted reader (Tavily Extract, Firecrawl Scrape, ...) implements.

A reader is an adapter on the shared base (:class:`spyglass.providers.adapter.Adapter`), like
a search provider: it never does I/O, but turns a URL into a
:class:`~spyglass.providers.exchange.ProviderRequest` and a response body into a
:class:`HostedPage` (or a :class:`FetchFailure`). Sending, the deadline, the size bound and
generic status mapping are the base's; routing and post-processing are
:mod:`spyglass.fetch.hosted.dispatch`.
"""

from __future__ import annotations

from abc import abstractmethod
from dataclasses import dataclass
from typing import ClassVar, Literal

from spyglass.providers.adapter import Adapter
from spyglass.providers.exchange import Endpoint, Failures, ProviderFailure, ProviderRequest

#: The name of "Spyglass reads the page itself" in ``fetch.providers``.
DIRECT = "direct"


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

    @classmethod
    def of(
        cls,
        content: str,
        *,
        source: object = None,
        title: object = None,
        format: Literal["markdown", "html", "text"] = "markdown",
    ) -> HostedPage:
        """The page, with the provider's ``source`` and ``title`` kept only where they are
        text (a blank title is none)."""
        return cls(
            source_url=source if isinstance(source, str) else None,
            title=title if isinstance(title, str) and title.strip() else None,
            content=content,
            format=format,
        )


class Reader(Adapter[FetchFailure]):
    """One hosted reader. Subclasses set the class attributes and the two methods."""

    failures = FAILURES
    #: How people see it: "Firecrawl will fetch this page for you".
    display_name: ClassVar[str]
    #: The public endpoint; ``fetch.<name>.base_url`` (or ``search.<name>.base_url``) overrides.
    default_base_url: ClassVar[str]

    @abstractmethod
    def build_request(self, url: str, endpoint: Endpoint) -> ProviderRequest:
        """The request that asks this reader for the page at ``url``."""

    @abstractmethod
    def parse(self, body: bytes, url: str) -> HostedPage:
        """The page from a 2xx response body; raises :class:`FetchFailure` when unusable."""

    def max_bytes(self, page_cap: int) -> int:
        """The response bound for this reader, given the owner's page cap in bytes."""
        return page_cap


def said(text: str) -> str:
    """`` (it said: "…")`` after a message, or ``""`` when there is nothing to say."""
    return f' (it said: "{text}")' if text else ""
