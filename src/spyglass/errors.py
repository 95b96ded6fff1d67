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
    └── CapabilityError        raised *inside* a capability to end it with a structured code;
                               the executor turns it into a ``failed`` or ``rejected`` Outcome
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
