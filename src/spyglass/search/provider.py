"""The adapter interface every search provider implements.

An adapter never does I/O: it turns a :class:`SearchQuery` into a :class:`ProviderRequest`,
and a response body into a :class:`ParsedPage` (or a :class:`SearchFailure`). Sending,
timeouts, the size bound, generic status mapping and result cleaning are shared code.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any, ClassVar

from spyglass import jsontext
from spyglass.providers.exchange import Endpoint, ProviderRequest
from spyglass.search.cleaning import plain_text
from spyglass.search.model import (
    INVALID_OUTPUT,
    ParsedPage,
    SearchFailure,
    SearchQuery,
)

__all__ = ["Endpoint", "Provider", "ProviderRequest"]

#: How much of a provider's own explanation of an error may reach a message.
EXPLANATION_CHARS = 300


class Provider(ABC):
    """One search provider. Subclasses set the class attributes and the two methods."""

    #: The name used in settings (``search.<name>``), results and the audit log.
    name: ClassVar[str]
    #: The public endpoint; ``None`` when the owner must set ``search.<name>.base_url``.
    default_base_url: ClassVar[str | None]
    #: Whether ``search.<name>.api_key`` is required.
    needs_key: ClassVar[bool] = True
    #: Whether ``time_range`` and domain filters are applied upstream (else locally/noted).
    supports_time_range: ClassVar[bool] = False
    #: Largest number of results one request may ask for.
    max_count: ClassVar[int] = 10
    #: Query operators the provider honours, as the model should write them; the
    #: ``web_search`` tool description lists the ones every configured provider shares.
    operators: ClassVar[tuple[str, ...]] = ()

    @abstractmethod
    def build_request(self, query: SearchQuery, endpoint: Endpoint) -> ProviderRequest:
        """The request that asks this provider for ``query``."""

    def build_requests(self, query: SearchQuery, endpoint: Endpoint) -> list[ProviderRequest]:
        """Every request one search needs; one unless the provider must fan out."""
        return [self.build_request(query, endpoint)]

    @abstractmethod
    def parse(self, body: bytes, query: SearchQuery) -> ParsedPage:
        """Results from a 2xx response body; raises :class:`SearchFailure` when unusable."""

    def explain_error(self, status: int, body: bytes) -> SearchFailure | None:
        """A provider-specific failure for this response, or ``None`` for the generic rules.

        Called for every response before :meth:`parse`, so a provider can also recognise
        failures that arrive with a 2xx status.
        """
        return None

    # -- helpers for adapters ----------------------------------------------------------------

    def load_json(self, body: bytes) -> Any:
        """The decoded JSON document, or ``SEARCH_INVALID_OUTPUT`` naming this provider."""
        try:
            return jsontext.loads(body)
        except (UnicodeDecodeError, ValueError):
            raise SearchFailure(
                INVALID_OUTPUT,
                f"{self.name} answered with something that is not JSON; "
                f"check that search.{self.name}.base_url points at its API",
            ) from None

    def invalid(self, what: str) -> SearchFailure:
        """``SEARCH_INVALID_OUTPUT`` for a response that lacks ``what``."""
        return SearchFailure(
            INVALID_OUTPUT,
            f"{self.name} answered without {what}; its API may have changed or "
            f"search.{self.name}.base_url points at something else",
        )


def explanation(text: object) -> str:
    """A provider's own error text as plain text of at most 300 characters."""
    if not isinstance(text, str):
        return ""
    return plain_text(text)[:EXPLANATION_CHARS]


def json_or_none(body: bytes) -> Any:
    """The JSON document in ``body``, or ``None`` when it is not JSON."""
    try:
        return jsontext.loads(body)
    except (UnicodeDecodeError, ValueError):
        return None


def site_terms(query: SearchQuery) -> str:
    """The query text with ``site:`` / ``-site:`` terms for providers that understand them."""
    terms = [query.text]
    if query.include_domains:
        sites = [f"site:{domain}" for domain in query.include_domains]
        terms.append(sites[0] if len(sites) == 1 else "(" + " OR ".join(sites) + ")")
    terms.extend(f"-site:{domain}" for domain in query.exclude_domains)
    return " ".join(terms)


def first_text(item: Mapping[str, Any], *names: str) -> str:
    """The first non-empty string among ``item[name]`` for ``names``; ``""`` if none."""
    for name in names:
        value = item.get(name)
        if isinstance(value, str) and value.strip():
            return value
    return ""


def join_url(base_url: str, path: str) -> str:
    """``base_url`` (which may carry a path prefix) joined with ``path``."""
    return base_url.rstrip("/") + "/" + path.lstrip("/")
