"""What went wrong on the network, decided once, by exception type, for every HTTP client.

The fetcher, the search client and the model client all talk HTTP through httpx. Each turns
a failed exchange into its own message, but *what* failed — the name could not be looked up,
the network is unreachable, nothing listens, the certificate is wrong, the answer broke off,
time ran out — is decided here, from the types of the exception and of its causes (httpx
chains httpcore's exception, which chains the socket or TLS error), never from message text.
"""

from __future__ import annotations

import errno
import socket
import ssl
from collections.abc import Iterator
from enum import StrEnum

import httpx


class Fault(StrEnum):
    """One kind of network failure."""

    TIMEOUT = "timeout"
    #: The host name could not be looked up (no such name, or no working DNS).
    NAME = "name"
    #: No route: this machine is offline or the address is on a network it cannot reach.
    UNREACHABLE = "unreachable"
    #: The host answered but nothing listens on that port.
    REFUSED = "refused"
    #: The TLS handshake failed or the certificate does not verify for the name.
    TLS = "tls"
    #: A connection could not be opened, for no more specific reason.
    CONNECT = "connect"
    #: The connection opened, then broke or spoke something that is not HTTP.
    BROKEN = "broken"
    #: The request itself could not be sent (a bad URL, an unsupported scheme).
    REQUEST = "request"


_UNREACHABLE_ERRNOS = frozenset(
    {errno.ENETUNREACH, errno.EHOSTUNREACH, errno.ENETDOWN, errno.EHOSTDOWN, errno.EADDRNOTAVAIL}
)
#: How far down a chain of causes to look; httpx → httpcore → OS is three links.
_MAX_DEPTH = 8


def causes(exc: BaseException) -> Iterator[BaseException]:
    """``exc`` and the exceptions it was raised from, outermost first (cycle-safe)."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen and len(seen) < _MAX_DEPTH:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def classify(exc: BaseException) -> Fault:
    """The kind of failure ``exc`` (usually an :class:`httpx.HTTPError`) reports."""
    for link in causes(exc):
        if isinstance(link, httpx.TimeoutException | TimeoutError | socket.timeout):
            return Fault.TIMEOUT
        if isinstance(link, ssl.SSLError | ssl.CertificateError):
            return Fault.TLS
        if isinstance(link, socket.gaierror):
            return Fault.NAME
        if isinstance(link, ConnectionRefusedError):
            return Fault.REFUSED
        if isinstance(link, OSError) and link.errno in _UNREACHABLE_ERRNOS:
            return Fault.UNREACHABLE
    if isinstance(exc, httpx.ConnectError):
        return Fault.CONNECT
    if isinstance(exc, httpx.UnsupportedProtocol | httpx.InvalidURL | httpx.LocalProtocolError):
        return Fault.REQUEST
    return Fault.BROKEN


__all__ = ["Fault", "causes", "classify"]
