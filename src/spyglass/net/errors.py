"""The error codes and refusal reasons of ``web.fetch`` (docs/fetch.md), as ready exceptions.

Every failure the fetcher reports is a :class:`~spyglass.errors.CapabilityError` so the
executor turns it into an Outcome. Messages say what happened and what to do; they never
contain a resolved IP address (that would make ``web.fetch`` a DNS oracle).
"""

from __future__ import annotations

from typing import Literal

from spyglass.errors import CapabilityError

TARGET_REJECTED = "FETCH_TARGET_REJECTED"
HTTP_ERROR = "FETCH_HTTP_ERROR"
UNSUPPORTED_CONTENT = "FETCH_UNSUPPORTED_CONTENT"
TOO_LARGE = "FETCH_TOO_LARGE"
NETWORK_ERROR = "FETCH_NETWORK_ERROR"
TOO_MANY_REDIRECTS = "FETCH_TOO_MANY_REDIRECTS"
TIMEOUT = "TIMEOUT"
OFFSET_OUT_OF_RANGE = "OFFSET_OUT_OF_RANGE"

Reason = Literal[
    "scheme",
    "credentials",
    "malformed_url",
    "port",
    "private_address",
    "domain_denied",
    "domain_not_allowed",
    "robots",
]

PRIVATE_MESSAGE = (
    "the address is on your own network (or is a special-use or cloud metadata "
    "address); only public web addresses can be fetched, unless the owner opened this "
    "host with fetch.private_network"
)
#: For addresses no setting can open: pointing at ``fetch.private_network`` there would send
#: the owner to a setting that can never help.
NEVER_MESSAGE = (
    "the address is this machine itself (loopback, or one of its own addresses), a link-local "
    "or cloud metadata address, or another special-use address; such addresses are never "
    "fetched, whatever the settings say"
)


class TargetRejected(CapabilityError):
    """The destination is refused before any byte is sent to it."""

    def __init__(self, reason: Reason, message: str) -> None:
        super().__init__(TARGET_REJECTED, message, reason=reason, status="rejected")


def private_address(*, openable: bool = True) -> TargetRejected:
    """The refusal of an address inside; ``openable`` when ``fetch.private_network`` could
    open it (a host of the owner's network), so only then does the message suggest it."""
    return TargetRejected("private_address", PRIVATE_MESSAGE if openable else NEVER_MESSAGE)


#: The reason of a network error whose host name could not be looked up: no connection was
#: opened, so nothing was sent to the site (a receipt says it stayed on the device).
UNRESOLVED_NAME = "unresolved_name"


def sent_nothing(failure: CapabilityError) -> bool:
    """Whether a failed attempt sent nothing anywhere: refused before any byte, or its host's
    name (the site's, or a provider's) could not be looked up."""
    return failure.status == "rejected" or failure.reason == UNRESOLVED_NAME


def last_of_attempts(failure: CapabilityError, *, reached: bool) -> CapabilityError:
    """``failure``, the one reported after several attempts (a fallback order), no longer
    saying nothing was sent when an earlier attempt ``reached`` its site or provider."""
    if reached and failure.reason == UNRESOLVED_NAME:
        failure.reason = None
    return failure


def network_error(message: str, *, reason: str | None = None) -> CapabilityError:
    return CapabilityError(NETWORK_ERROR, message, retryable=True, reason=reason)


def timeout(seconds: float) -> CapabilityError:
    return CapabilityError(
        TIMEOUT,
        f"the page did not arrive within {seconds:g} seconds; try again later or "
        "raise fetch.timeout_seconds",
        retryable=True,
    )


def too_large(limit: int, what: str) -> CapabilityError:
    return CapabilityError(
        TOO_LARGE,
        f"the {what} is larger than the {limit:,}-byte limit; it was not read further "
        f"(fetch.max_{'pdf' if what == 'PDF' else 'page'}_bytes sets the limit)",
    )


def too_many_redirects(limit: int) -> CapabilityError:
    return CapabilityError(
        TOO_MANY_REDIRECTS,
        f"the page redirected more than {limit} times; it may be a redirect loop: fetch the "
        "final address directly if you know it",
    )
