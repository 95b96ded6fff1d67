"""The pinned transport: httpx connects only to addresses the guard checked, at connect time.

httpcore asks its network backend to ``connect_tcp(host, port)`` whenever it needs a new
connection. :class:`GuardedBackend` answers by resolving the host once through the
injected :class:`Resolver`, refusing the whole name if *any* answer is refused, and dialling
one of the checked addresses through the injected :class:`Dialler`. The URL keeps the host
name, so httpcore sends ``Host``, uses SNI and verifies the certificate for the name, while
the socket goes to the pinned address. Proxy variables are ignored (``trust_env=False``).
"""

from __future__ import annotations

import ssl
import typing

import httpcore
import httpx

from spyglass.net.addresses import IPAddress, refusal
from spyglass.net.dialler import Dialler, PeerRefused
from spyglass.net.errors import UNRESOLVED_NAME, TargetRejected, network_error, private_address
from spyglass.net.guard import check_name, host_literal
from spyglass.net.pool import HTTPCORE_TO_HTTPX as HTTPCORE_TO_HTTPX
from spyglass.net.pool import CoreTransport
from spyglass.net.private import PrivateNetwork, private_use
from spyglass.net.resolver import ResolutionError, Resolver

UNRESOLVED = (
    "the site's name could not be looked up: it may be misspelt, or this machine has no "
    "network or no working DNS right now"
)


class GuardedBackend(httpcore.AsyncNetworkBackend):
    """An httpcore network backend that resolves, checks and dials pinned addresses."""

    def __init__(
        self, resolver: Resolver, dialler: Dialler, private: PrivateNetwork | None = None
    ) -> None:
        self._resolver = resolver
        self._dialler = dialler
        self._private = private or PrivateNetwork()

    async def checked_addresses(self, host: str, port: int) -> list[IPAddress]:
        """Every address of ``host``, or :class:`TargetRejected` if any one is refused."""
        literal = host_literal(host.lower())
        opened = False
        if literal is not None:
            answers = [literal]
            opened = self._private.opens(literal)
        else:
            name = host.lower().rstrip(".")
            opened = self._private.names_host(name)
            if not opened:
                check_name(name)
            try:
                answers = await self._resolver.resolve(host, port)
            except ResolutionError:
                raise network_error(UNRESOLVED, reason=UNRESOLVED_NAME) from None
        refused = [a for a in answers if not self._acceptable(a, opened)]
        if not answers or refused:
            # One private answer is enough to refuse: a name that can lead inside is not a
            # public site, and picking the "good" answer invites rebinding games.
            raise private_address(openable=all(private_use(a) for a in refused))
        return answers

    def _acceptable(self, address: IPAddress, opened: bool) -> bool:
        if refusal(address) is None:
            return True
        # A host the owner opened may sit in private-use space, never in loopback,
        # link-local, metadata or other special-use blocks.
        return opened and private_use(address)

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: typing.Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        addresses = await self.checked_addresses(host, port)
        last: Exception | None = None
        for address in addresses:
            try:
                return await self._dialler.connect(address, port, timeout)
            except PeerRefused:
                # The socket led back to this machine or somewhere unchecked: nothing opens it.
                raise private_address(openable=False) from None
            except (httpcore.ConnectError, httpcore.ConnectTimeout, OSError) as exc:
                last = exc
        if isinstance(last, httpcore.ConnectTimeout | httpcore.ConnectError):
            raise last
        error = httpcore.ConnectError("could not connect to any address of the site")
        # httpcore's pool re-raises with ``from None``, which clears ``__cause__`` but keeps
        # ``__context__``: set both, so spyglass.net.faults can still tell "refused" from
        # "network unreachable" by the OS error's type.
        error.__context__ = last
        raise error from last

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: typing.Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        raise TargetRejected("scheme", "unix sockets cannot be fetched")

    async def sleep(self, seconds: float) -> None:
        await httpcore.AnyIOBackend().sleep(seconds)


class PinnedTransport(CoreTransport):
    """An httpx transport whose connection pool dials only through a :class:`GuardedBackend`."""

    def __init__(
        self,
        backend: GuardedBackend,
        *,
        ssl_context: ssl.SSLContext | None = None,
        limits: httpx.Limits | None = None,
    ) -> None:
        super().__init__(backend, ssl_context=ssl_context, limits=limits)
