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

from spyglass.fetch.addresses import IPAddress, refusal
from spyglass.fetch.dialler import Dialler, PeerRefused
from spyglass.fetch.errors import TargetRejected, network_error, private_address
from spyglass.fetch.guard import check_name, host_literal
from spyglass.fetch.resolver import ResolutionError, Resolver


class GuardedBackend(httpcore.AsyncNetworkBackend):
    """An httpcore network backend that resolves, checks and dials pinned addresses."""

    def __init__(self, resolver: Resolver, dialler: Dialler) -> None:
        self._resolver = resolver
        self._dialler = dialler

    async def checked_addresses(self, host: str, port: int) -> list[IPAddress]:
        """Every address of ``host``, or :class:`TargetRejected` if any one is refused."""
        literal = host_literal(host.lower())
        if literal is not None:
            answers = [literal]
        else:
            check_name(host.lower().rstrip("."))
            try:
                answers = await self._resolver.resolve(host, port)
            except ResolutionError:
                raise network_error(
                    "the site's name could not be resolved; check the spelling of the host"
                ) from None
        if not answers or any(refusal(address) is not None for address in answers):
            # One private answer is enough to refuse: a name that can lead inside is not a
            # public site, and picking the "good" answer invites rebinding games.
            raise private_address()
        return answers

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
                raise private_address() from None
            except (httpcore.ConnectError, httpcore.ConnectTimeout, OSError) as exc:
                last = exc
        if isinstance(last, httpcore.ConnectTimeout):
            raise last
        raise httpcore.ConnectError("could not connect to any address of the site")

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: typing.Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        raise TargetRejected("scheme", "unix sockets cannot be fetched")

    async def sleep(self, seconds: float) -> None:
        await httpcore.AnyIOBackend().sleep(seconds)


class PinnedTransport(httpx.AsyncHTTPTransport):
    """``httpx.AsyncHTTPTransport`` whose connection pool dials through a GuardedBackend."""

    def __init__(
        self,
        backend: GuardedBackend,
        *,
        ssl_context: ssl.SSLContext | None = None,
        limits: httpx.Limits | None = None,
    ) -> None:
        limits = limits or httpx.Limits(max_connections=32, max_keepalive_connections=8)
        context = ssl_context or httpx.create_ssl_context(trust_env=False)
        super().__init__(verify=context, trust_env=False, limits=limits)
        # httpx builds its pool without a way to pass a network backend; replace it with an
        # identical pool that has one. Everything else (request mapping, exception mapping,
        # response streaming) stays httpx's own code.
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=context,
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            http1=True,
            http2=False,
            network_backend=backend,
        )
