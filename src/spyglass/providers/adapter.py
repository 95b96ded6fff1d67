"""The adapter base every hosted provider builds on, search engine and page reader alike.

An adapter does no I/O of its own: it describes requests as
:class:`~spyglass.providers.exchange.ProviderRequest` and reads the bodies that come back.
What every adapter shares is here: its name, public endpoint and whether it needs a key; the
:class:`~spyglass.providers.exchange.Endpoint` its settings give it; one exchange (the bounded
send, then the adapter's own reading of the response, then the generic status rules); and
its failures, named for its section (``SEARCH_*`` or ``FETCH_*``). Building a request and
reading an answer (a result list, a page) belong to the capability's own base:
:class:`spyglass.search.provider.Provider` and :class:`spyglass.fetch.hosted.reader.Reader`.
"""

from __future__ import annotations

from abc import ABC
from typing import TYPE_CHECKING, Any, ClassVar, Generic

from spyglass import jsontext
from spyglass.providers.exchange import (
    INVALID_OUTPUT,
    NOT_CONFIGURED,
    Endpoint,
    F,
    Failures,
    ProviderRequest,
    send,
    status_failure,
)

if TYPE_CHECKING:
    from spyglass.providers.clients import ProviderClients


class Adapter(ABC, Generic[F]):
    """One hosted provider of one capability; ``F`` is that capability's failure type."""

    #: The name used in settings (``<section>.<name>``), results and the audit log.
    name: ClassVar[str]
    #: The public endpoint; ``None`` when the owner must set ``<section>.<name>.base_url``.
    default_base_url: ClassVar[str | None] = None
    #: Whether an API key is required.
    needs_key: ClassVar[bool] = True
    #: How the capability names its failures (set once by the capability's base class).
    failures: Failures[F]

    def explain_error(self, status: int, body: bytes) -> F | None:
        """A provider-specific failure for this response, or ``None`` for the generic rules.

        Called for every response before it is read, so a provider can also recognise
        failures that arrive with a 2xx status.
        """
        return None

    async def exchange(
        self,
        request: ProviderRequest,
        *,
        timeout: float,
        max_bytes: int,
        address_key: str | None = None,
        clients: ProviderClients | None = None,
    ) -> bytes:
        """Send ``request`` and return the body of a successful answer, or raise ``F``.

        ``address_key`` and ``clients`` are those of :func:`~spyglass.providers.exchange.send`.
        """
        response = await send(
            self.name,
            request,
            timeout=timeout,
            max_bytes=max_bytes,
            failures=self.failures,
            address_key=address_key,
            clients=clients,
        )
        failure = self.explain_error(response.status, response.body)
        if failure is not None:
            raise failure
        if not 200 <= response.status < 300:
            raise self.status_failure(response.status)
        return response.body

    def endpoint(
        self, base_url: str | None, api_key: str | None, *, key_setting: str = ""
    ) -> Endpoint:
        """The endpoint at ``base_url`` with ``api_key``, or ``*_NOT_CONFIGURED`` naming the
        setting to fix (``key_setting`` says where a key may be set, when not only in
        ``<section>.<name>.api_key``)."""
        setting = f"{self.failures.section}.{self.name}"
        env = f"SPYGLASS_{self.failures.section.upper()}__{self.name.upper()}"
        if not base_url:
            raise self.failure(
                NOT_CONFIGURED,
                f"{self.name} needs its address: set {setting}.base_url in config.toml (for "
                f'example "http://127.0.0.1:8888") or {env}__BASE_URL',
            )
        if not base_url.lower().startswith(("http://", "https://")):
            raise self.failure(
                NOT_CONFIGURED, f"{setting}.base_url must start with http:// or https://"
            )
        if self.needs_key and not api_key:
            raise self.failure(
                NOT_CONFIGURED,
                f"{self.name} needs an API key: set {key_setting or setting + '.api_key'} in "
                f"config.toml or {env}__API_KEY",
            )
        return Endpoint(base_url=base_url, api_key=api_key or None)

    # -- failures, for adapters --------------------------------------------------------------

    def failure(self, kind: str, message: str, *, retryable: bool = False) -> F:
        """A failure of this capability: ``kind`` is an exchange kind (``AUTH_FAILED``)."""
        return self.failures(kind, message, retryable=retryable)

    def status_failure(self, status: int) -> F:
        """The generic failure for a non-2xx status this adapter did not explain itself."""
        return status_failure(self.name, status, needs_key=self.needs_key, failures=self.failures)

    def load_json(self, body: bytes) -> Any:
        """The decoded JSON document, or ``*_INVALID_OUTPUT`` naming this provider."""
        try:
            return jsontext.loads(body)
        except (UnicodeDecodeError, ValueError):
            raise self.failure(
                INVALID_OUTPUT,
                f"{self.name} answered with something that is not JSON; "
                f"check that {self.failures.section}.{self.name}.base_url points at its API",
            ) from None

    def invalid(self, what: str) -> F:
        """``*_INVALID_OUTPUT`` for a response that lacks ``what``."""
        return self.failure(
            INVALID_OUTPUT,
            f"{self.name} answered without {what}; its API may have changed or "
            f"{self.failures.section}.{self.name}.base_url points at something else",
        )
