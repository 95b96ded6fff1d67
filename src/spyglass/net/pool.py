"""An httpx transport over an httpcore connection pool on a network backend of our choice.

httpx's own transport builds its pool on httpcore's default (anyio) backend and offers no
way to give it another; this one takes any :class:`httpcore.AsyncNetworkBackend`, through
public extension points only: :class:`httpx.AsyncBaseTransport` on the httpx side and
:class:`httpcore.AsyncConnectionPool`'s ``network_backend`` on the httpcore side. HTTP/1.1
only; proxies are never used. ``web.fetch`` uses it with its guarded backend
(:mod:`spyglass.net.transport`), the model and provider clients with the asyncio one
(:mod:`spyglass.net.backend`).
"""

from __future__ import annotations

import contextlib
import ssl
import typing

import httpcore
import httpx

#: httpcore's exceptions and the httpx ones that mean the same, most specific first. Both
#: sides are public API of their packages; ``tests/net/test_transport.py`` checks that the
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


class CoreTransport(httpx.AsyncBaseTransport):
    """httpx requests through an httpcore pool that dials with ``backend``."""

    def __init__(
        self,
        backend: httpcore.AsyncNetworkBackend,
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
