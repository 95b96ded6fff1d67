"""The Outcome of an invocation: what every front end prints, returns or shows."""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Literal

Status = Literal["ok", "rejected", "failed", "pending_confirmation", "denied"]
#: ``check`` is a capability's own checks that need no network (URL syntax, literal addresses,
#: domain lists, privacy), run before anyone is asked to approve the call.
Stage = Literal["resolve", "validate", "policy", "check", "confirm", "execute"]


class Code(StrEnum):
    """Error codes the executor itself produces. Capabilities add their own (``FETCH_*``...)."""

    UNKNOWN_CAPABILITY = "UNKNOWN_CAPABILITY"
    INVALID_ARGUMENTS = "INVALID_ARGUMENTS"
    POLICY_DISABLED = "POLICY_DISABLED"
    #: The owner's policy exists but cannot be read; everything stays off until it is fixed.
    POLICY_UNREADABLE = "POLICY_UNREADABLE"
    INVALID_CONFIRMATION = "INVALID_CONFIRMATION"
    #: A confirmation nobody answered in time (audited once per card, however noticed).
    CONFIRMATION_EXPIRED = "CONFIRMATION_EXPIRED"
    CONFIRMATION_REQUIRED = "CONFIRMATION_REQUIRED"
    DENIED = "DENIED"
    TIMEOUT = "TIMEOUT"
    RESULT_TOO_LARGE = "RESULT_TOO_LARGE"
    TURN_LIMIT_EXCEEDED = "TURN_LIMIT_EXCEEDED"
    INVALID_RESULT = "INVALID_RESULT"
    EXECUTION_FAILED = "EXECUTION_FAILED"
    STORE_UNAVAILABLE = "STORE_UNAVAILABLE"
    #: The process running an approved call stopped while it ran: it may have been sent.
    INTERRUPTED = "INTERRUPTED"


@dataclass(frozen=True)
class ErrorInfo:
    code: str
    message: str
    retryable: bool = False
    reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"code": self.code}
        if self.reason is not None:
            data["reason"] = self.reason
        data["message"] = self.message
        data["retryable"] = self.retryable
        return data


@dataclass(frozen=True)
class Notice:
    """Something the person approving a call should see next to it.

    A capability's precheck returns these: where the call will be sent ("Firecrawl will fetch
    this page"), where a URL came from, or what private data an argument seems to carry.
    ``argument`` names the argument the notice is about and ``start``/``end`` the span of its
    string value, so a front end can highlight it. ``kind`` is a short dotted identifier
    (``privacy.email``, ``provider``); only kinds, never messages, may reach the audit log.
    """

    kind: str
    message: str
    argument: str | None = None
    start: int | None = None
    end: int | None = None

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"kind": self.kind, "message": self.message}
        if self.argument is not None:
            data["argument"] = self.argument
        if self.start is not None and self.end is not None:
            data["start"], data["end"] = self.start, self.end
        return data


#: The kind of the notice a capability's precheck names the call's recipient with: the
#: provider that will see the arguments ("DuckDuckGo", "Jina Reader"), or ``direct`` when
#: Spyglass itself sends the request. It becomes :attr:`PendingConfirmation.provider`.
RECIPIENT = "recipient"

#: The recipient that is Spyglass itself (a page it reads on its own).
DIRECT_RECIPIENT = "direct"


#: ``confirmed_by`` of a call that ran without a card under the owner's ``flagged`` mode.
FLAGGED = "flagged"
#: ``confirmed_by`` of a call that ran without a card under an "Allow for this conversation".
CONVERSATION = "conversation"
#: The rules under which a call that needs confirmation runs without a card.
UNASKED = frozenset({FLAGGED, CONVERSATION})


@dataclass(frozen=True)
class PendingConfirmation:
    token: str
    capability: str
    version: int
    arguments: dict[str, Any]
    expires_in_seconds: int
    notices: tuple[Notice, ...] = ()
    #: Who must approve it when the person asking may not ("an owner or a parent"); the
    #: token then works only once one of them has approved.
    waiting_for: str | None = None
    #: Who receives the call once approved (see :data:`RECIPIENT`); None when not known.
    provider: str | None = None
    #: Why this call asks where the owner let calls run without a card (``flagged``):
    #: short sentences for the person ("this address did not come from this conversation").
    reasons: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "token": self.token,
            "capability": self.capability,
            "version": self.version,
            "arguments": self.arguments,
            "expires_in_seconds": self.expires_in_seconds,
            "notices": [notice.to_dict() for notice in self.notices],
            "provider": self.provider,
        }
        if self.waiting_for is not None:
            data["waiting_for"] = self.waiting_for
        if self.reasons:
            data["reasons"] = list(self.reasons)
        return data


@dataclass(frozen=True)
class Outcome:
    """The answer to one invocation attempt. Only the keys that apply are serialised."""

    status: Status
    capability: str
    version: int | None
    invocation_id: str
    stage: Stage
    result: dict[str, Any] | None = None
    error: ErrorInfo | None = None
    pending_confirmation: PendingConfirmation | None = None
    #: Search or fetch provider that ran, for the audit log and the person; not serialised
    #: into the Outcome JSON when absent.
    provider: str | None = None
    #: The rule under which a call that needs confirmation ran without a card
    #: (:data:`FLAGGED`, :data:`CONVERSATION`); ``None`` when someone approved it, or it
    #: needed nobody.
    unasked: str | None = None

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "status": self.status,
            "capability": self.capability,
            "version": self.version,
            "invocation_id": self.invocation_id,
            "stage": self.stage,
        }
        if self.result is not None:
            data["result"] = self.result
        if self.error is not None:
            data["error"] = self.error.to_dict()
        if self.pending_confirmation is not None:
            data["pending_confirmation"] = self.pending_confirmation.to_dict()
        if self.provider is not None:
            data["provider"] = self.provider
        if self.unasked is not None:
            data["unasked"] = self.unasked
        return data

    def to_json(self, *, indent: int | None = None) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=indent)
