"""The pinned transport: httpx connects only to addresses the guard checked, at connect time.

httpcore asks its network backend to ``connect_tcp(host, port)`` whenever it needs a new
connection. :class:`GuardedBackend` answers by resolving the host once through the
injected :class:`Resolver`, refusing the whole name if *any* answer is refused, and dialling
one of the checked addresses through the injected :class:`Dialler`. The URL keeps the host
name, so httpcore sends ``Host``, uses SNI and verifies the certificate for the name, while
the socket goes to the pinned address. Proxy variables are ignored (``trust_env=False``).
"""

from __future__ import annotations

import contextlib
import ssl
import typing

import httpcore
import httpx

from spyglass.fetch.addresses import IPAddress, refusal
from spyglass.fetch.dialler import Dialler, PeerRefused
from spyglass.fetch.errors import TargetRejected, network_error, private_address
from spyglass.fetch.guard import check_name, host_literal
from spyglass.fetch.private import PrivateNetwork, private_use
from spyglass.fetch.resolver import ResolutionError, Resolver

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
                raise network_error(UNRESOLVED) from None
        if not answers or any(not self._acceptable(a, opened) for a in answers):
            # One private answer is enough to refuse: a name that can lead inside is not a
            # public site, and picking the "good" answer invites rebinding games.
            raise private_address()
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
                raise private_address() from None
            except (httpcore.ConnectError, httpcore.ConnectTimeout, OSError) as exc:
                last = exc
        if isinstance(last, httpcore.ConnectTimeout | httpcore.ConnectError):
            raise last
        error = httpcore.ConnectError("could not connect to any address of the site")
        # httpcore's pool re-raises with ``from None``, which clears ``__cause__`` but keeps
        # ``__context__``: set both, so spyglass.netfaults can still tell "refused" from
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


#: httpcore's exceptions and the httpx ones that mean the same, most specific first. Both
#: sides are public API of their packages; ``tests/fetch/test_transport.py`` checks that the
#: table still covers every exception httpcore exports, so a new httpcore cannot slip one past.
HTTPCORE_TO_HTTPX: tuple[tuple[type[Exception], type[httpx.HTTPError]], ...] = (
    (httpcore.ConnectTimeout, httpx.ConnectTimeout),
    (httpcore.ReadTimeout, httpx.ReadTimeout),
    (httpcore.WriteTimeout, httpx.WriteTimeout),
    (httpcore.PoolTimeout, httpx.PoolTimeout),
    (httpcore.TimeoutException, httpx.TimeoutException),
    (httpcore.ConnectError, httpx.ConnectError),
    (httpcore.ReadError, httpx.ReadError),
    (httpcore.WriteError, httpx.WriteError),
    (httpcore.NetworkError, httpx.NetworkError),
    (httpcore.RemoteProtocolError, httpx.RemoteProtocolError),
    (httpcore.LocalProtocolError, httpx.LocalProtocolError),
    (httpcore.ProtocolError, httpx.ProtocolError),
    (httpcore.ProxyError, httpx.ProxyError),
    (httpcore.UnsupportedProtocol, httpx.UnsupportedProtocol),
)


@contextlib.contextmanager
def httpx_errors() -> typing.Iterator[None]:
    """Re-raise httpcore's exceptions as their httpx counterparts (the cause is kept)."""
    try:
        yield
    except Exception as exc:
        for source, target in HTTPCORE_TO_HTTPX:
            if isinstance(exc, source):
                raise target(str(exc)) from exc
        raise


class _Body(httpx.AsyncByteStream):
    """A response body read from httpcore, with its errors in httpx's terms."""

    def __init__(self, stream: typing.AsyncIterable[bytes]) -> None:
        self._stream = stream

    async def __aiter__(self) -> typing.AsyncIterator[bytes]:
        with httpx_errors():
            async for piece in self._stream:
                yield piece

    async def aclose(self) -> None:
        close = getattr(self._stream, "aclose", None)
        if close is not None:
            await close()


class PinnedTransport(httpx.AsyncBaseTransport):
    """An httpx transport whose connection pool dials only through a :class:`GuardedBackend`.

    Built on public extension points only: :class:`httpx.AsyncBaseTransport` on the httpx
    side, and :class:`httpcore.AsyncConnectionPool` with its ``network_backend`` argument on
    the httpcore side. HTTP/1.1 only; proxies are never used.
    """

    def __init__(
        self,
        backend: GuardedBackend,
        *,
        ssl_context: ssl.SSLContext | None = None,
        limits: httpx.Limits | None = None,
    ) -> None:
        limits = limits or httpx.Limits(max_connections=32, max_keepalive_connections=8)
        context = ssl_context or httpx.create_ssl_context(trust_env=False)
        self.pool = httpcore.AsyncConnectionPool(
            ssl_context=context,
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            http1=True,
            http2=False,
            network_backend=backend,
        )

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        url = request.url
        core_request = httpcore.Request(
            method=request.method,
            url=httpcore.URL(
                scheme=url.raw_scheme, host=url.raw_host, port=url.port, target=url.raw_path
            ),
            headers=request.headers.raw,
            content=typing.cast(typing.AsyncIterable[bytes], request.stream),
            extensions=request.extensions,
        )
        with httpx_errors():
            response = await self.pool.handle_async_request(core_request)
        return httpx.Response(
            status_code=response.status,
            headers=response.headers,
            stream=_Body(typing.cast(typing.AsyncIterable[bytes], response.stream)),
            extensions=response.extensions,
        )

    async def aclose(self) -> None:
        await self.pool.aclose()
