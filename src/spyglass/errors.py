"""The Spyglass exception tree.

Two error channels run through Spyglass. Anything a model or a person can act on (a refused
URL, a failed search, an unapproved call) travels as a structured :class:`~spyglass.Outcome`,
never as an exception that escapes a front end. Exceptions are for programmer and
infrastructure faults, and every one Spyglass raises on purpose is a :class:`SpyglassError`::

    SpyglassError
    ├── ConfigError            settings file, environment variable or flag is invalid
    ├── DefinitionError        a capability or registry is built wrongly (a programmer fault)
    ├── StorageError           a file under SPYGLASS_HOME cannot be written (permissions, disk)
    ├── StoreUnavailable       a shared state server (Redis, PostgreSQL) cannot be reached
    ├── TurnBusy               (spyglass.conversation.pending) another process holds the turn
    ├── AnswerDeferred         (spyglass.conversation.turn) a store outage deferred an approval;
    │                          the turn waits again with its token
    ├── CapabilityError        raised *inside* a capability to end it with a structured code;
    │   │                      the executor turns it into a ``failed`` or ``rejected`` Outcome
    │   ├── TargetRejected         (spyglass.net.errors) a destination refused before sending
    │   └── ProviderFailure        (spyglass.providers.exchange) a hosted provider failed
    │       ├── SearchFailure          (spyglass.search.model) a search provider
    │       └── FetchFailure           (spyglass.fetch.hosted.reader) a hosted reader
    ├── UpstreamError          a peer outside Spyglass failed or misbehaved; the code that
    │   │                      called it turns this into a structured code
    │   ├── ModelUnavailable       (spyglass.llm.client) the model server gave no answer
    │   │   └── ToolsRefused           the model cannot take tools; ask again without
    │   ├── ServerDown             (spyglass.llm.discovery) no model server answers there yet
    │   ├── ResolutionError        (spyglass.net.resolver) a host name has no usable address
    │   ├── PeerRefused            (spyglass.net.dialler) a socket reached a refused address
    │   ├── BodyTooLarge           (spyglass.net.body) a page passed the size cap
    │   ├── UnsupportedEncoding    (spyglass.net.body) a content coding nobody asked for
    │   ├── LaunchFailed           (spyglass.fetch.render.host) no browser could be started
    │   └── RenderRefusal          (spyglass.fetch.render.exchange) a rendered page's request is
    │                              refused (guard, limits, kind); the request is aborted
    ├── RequestRefused         a front end refuses a request; carries a code and HTTP status
    │   ├── ApiError               (spyglass.service.errors) rendered as the JSON error shape
    │   └── TurnRefused            (spyglass.conversation.turn) a turn cannot start or resume
    └── InputError             a value given to Spyglass is malformed; also a ``ValueError``, so
        │                      settings validators report it as a validation error
        ├── AccountError           (spyglass.accounts.model) an account change that cannot be made
        ├── HostnameError          (spyglass.net.hostnames) text that is not a host name
        ├── DomainFilterError      (spyglass.search.domains) an unusable domain filter entry
        ├── RoutingError           (spyglass.providers.routing) an unusable providers setting
        └── DelegationRefused      (spyglass.mcp.clients) delegated for a host that asks nobody

The leaves live next to the code that raises them; a test walks the package and checks that
every exception class Spyglass defines is in this tree.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal


class SpyglassError(Exception):
    """Base class of every exception Spyglass raises on purpose."""


class ConfigError(SpyglassError):
    """The configuration cannot be used; the message names the source, the key and the fix."""


class DefinitionError(SpyglassError):
    """A capability or the registry is defined wrongly. Raised at import, never at run time."""


class StorageError(SpyglassError):
    """State under ``SPYGLASS_HOME`` cannot be written; the message names the file and why."""


class StoreUnavailable(SpyglassError):
    """A state store cannot be reached; ``store`` names it (``redis``, ``postgresql``...).

    Calls that need the store fail closed with ``STORE_UNAVAILABLE``: nothing runs unconfirmed.
    """

    def __init__(self, store: str, message: str) -> None:
        super().__init__(message)
        self.store = store
        self.message = message


class CapabilityError(SpyglassError):
    """Ends a capability's execution with a code the model and the person can act on.

    ``message`` must be safe to show: it may name the provider or the HTTP status, but never
    a secret, and it never reaches the audit log.
    """

    def __init__(
        self,
        code: str,
        message: str,
        *,
        retryable: bool = False,
        reason: str | None = None,
        status: Literal["failed", "rejected"] = "failed",
        findings: Sequence[str] = (),
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.retryable = retryable
        self.reason = reason
        self.status = status
        #: Fixed identifiers of what a check found (``email``), audited; never content.
        self.findings = tuple(findings)


class UpstreamError(SpyglassError):
    """A peer outside Spyglass (model server, web server, resolver) failed or misbehaved.

    Never shown as is: the code that talked to the peer turns it into a structured code.
    """


class RequestRefused(SpyglassError):
    """A front end refuses a request: ``code`` and ``message`` for the caller, HTTP ``status``."""

    def __init__(self, code: str, message: str, status: int) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status


class InputError(SpyglassError, ValueError):
    """A value given to Spyglass (a host name, a domain filter) is malformed.

    Also a :class:`ValueError`, so a pydantic validator that raises it reports a validation
    error naming the setting; callers that take input from a model or person turn it into a
    structured code.
    """
