"""httpcore's network backend straight on asyncio: every connection Spyglass opens uses it.

httpcore reaches asyncio through anyio by default: every read and write of a request passes
through anyio's socket stream, a cancel scope for its timeout and a checkpoint. The model
client, the search providers' and hosted readers' clients and ``web.fetch``'s guarded dialler
(:class:`spyglass.net.dialler.SystemDialler`) make several requests per turn on the event loop,
so this backend answers httpcore directly with an :class:`asyncio.Protocol` and a buffer: a
read that finds bytes waiting returns them without a context switch, and a timeout is one
timer on the loop. It implements httpcore's public :class:`httpcore.AsyncNetworkBackend`
interface and is handed to httpcore's public ``AsyncConnectionPool(network_backend=...)``
(:mod:`spyglass.net.pool`); why it is kept, with its threshold, is in docs/decisions.md.

Timeouts and failures are httpcore's own exceptions (``ConnectTimeout``, ``ReadTimeout``,
``WriteTimeout``, ``ConnectError``, ``ReadError``, ``WriteError``), so httpx reports them
exactly as it does with its default backend.
"""

from __future__ import annotations

import asyncio
import socket
import ssl
import typing

import httpcore

#: Past this many bytes waiting unread, the socket is not read until some are taken.
HIGH_WATER = 256 * 1024


class _Protocol(asyncio.Protocol):
    """Collects what the socket receives; wakes the one reader waiting for it."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.buffer = bytearray()
        self.eof = False
        self.error: BaseException | None = None
        self.waiter: asyncio.Future[None] | None = None
        self.paused = False
        self.drained: asyncio.Future[None] | None = None
        self.write_paused = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = typing.cast(asyncio.Transport, transport)

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        if len(self.buffer) > HIGH_WATER and not self.paused and self.transport is not None:
            self.paused = True
            self.transport.pause_reading()
        self._wake()

    def eof_received(self) -> bool | None:
        self.eof = True
        self._wake()
        return None  # the transport closes itself

    def connection_lost(self, exc: Exception | None) -> None:
        self.eof = True
        if exc is not None:
            self.error = exc
        self._wake()
        if self.drained is not None and not self.drained.done():
            self.drained.set_result(None)

    def pause_writing(self) -> None:
        self.write_paused = True

    def resume_writing(self) -> None:
        self.write_paused = False
        if self.drained is not None and not self.drained.done():
            self.drained.set_result(None)

    def _wake(self) -> None:
        waiter = self.waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)


def _expire(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_exception(TimeoutError())


async def _wait(future: asyncio.Future[None], timeout: float | None) -> None:
    """Wait for ``future``; :class:`TimeoutError` once ``timeout`` seconds have passed."""
    if timeout is None:
        await future
        return
    timer = asyncio.get_running_loop().call_later(timeout, _expire, future)
    try:
        await future
    finally:
        timer.cancel()


class LoopStream(httpcore.AsyncNetworkStream):
    """One connection: a transport and the :class:`_Protocol` reading for it."""

    def __init__(self, transport: asyncio.Transport, protocol: _Protocol) -> None:
        self._transport = transport
        self._protocol = protocol

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        protocol = self._protocol
        if not protocol.buffer:
            if protocol.eof:
                if protocol.error is not None:
                    raise httpcore.ReadError(str(protocol.error)) from protocol.error
                return b""
            protocol.waiter = asyncio.get_running_loop().create_future()
            try:
                await _wait(protocol.waiter, timeout)
            except TimeoutError:
                raise httpcore.ReadTimeout("timed out reading from the server") from None
            finally:
                protocol.waiter = None
            if not protocol.buffer:
                if protocol.error is not None:
                    raise httpcore.ReadError(str(protocol.error)) from protocol.error
                return b""
        buffer = protocol.buffer
        if len(buffer) <= max_bytes:
            data = bytes(buffer)
            buffer.clear()
        else:
            data = bytes(buffer[:max_bytes])
            del buffer[:max_bytes]
        if protocol.paused and len(buffer) <= HIGH_WATER // 4:
            protocol.paused = False
            self._transport.resume_reading()
        return data

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        if not buffer:
            return
        protocol = self._protocol
        if self._transport.is_closing():
            raise httpcore.WriteError("the connection is closed")
        self._transport.write(buffer)
        if protocol.write_paused:
            protocol.drained = asyncio.get_running_loop().create_future()
            try:
                await _wait(protocol.drained, timeout)
            except TimeoutError:
                raise httpcore.WriteTimeout("timed out writing to the server") from None
            finally:
                protocol.drained = None
            if protocol.error is not None:
                raise httpcore.WriteError(str(protocol.error)) from protocol.error

    async def aclose(self) -> None:
        self._transport.close()

    async def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.AsyncNetworkStream:
        loop = asyncio.get_running_loop()
        try:
            # asyncio's own handshake deadline ends in a plain ConnectionAbortedError: ours
            # comes first, as a timeout.
            async with asyncio.timeout(timeout):
                transport = await loop.start_tls(
                    self._transport,
                    self._protocol,
                    ssl_context,
                    server_hostname=server_hostname,
                    ssl_handshake_timeout=None if timeout is None else timeout + 1,
                )
        except TimeoutError:
            self._transport.close()
            raise httpcore.ConnectTimeout("timed out in the TLS handshake") from None
        except (OSError, ssl.SSLError) as exc:
            self._transport.close()
            raise httpcore.ConnectError(str(exc)) from exc
        if transport is None:  # pragma: no cover - only for a transport already closing
            raise httpcore.ConnectError("the connection closed during the TLS handshake")
        self._protocol.transport = transport
        return LoopStream(transport, self._protocol)

    def get_extra_info(self, info: str) -> typing.Any:
        if info == "is_readable":
            # For a kept connection: data or an end while idle means it cannot be reused.
            protocol = self._protocol
            return bool(protocol.buffer) or protocol.eof or self._transport.is_closing()
        if info == "ssl_object":
            return self._transport.get_extra_info("ssl_object")
        if info == "client_addr":
            return self._transport.get_extra_info("sockname")
        if info == "server_addr":
            return self._transport.get_extra_info("peername")
        if info == "socket":
            return self._transport.get_extra_info("socket")
        return None


class AsyncioBackend(httpcore.AsyncNetworkBackend):
    """Connects with the running loop's own transports (see the module's docstring)."""

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: typing.Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        loop = asyncio.get_running_loop()
        options = list(socket_options or ())

        async def connect() -> tuple[asyncio.Transport, _Protocol]:
            if not options:
                return await loop.create_connection(
                    _Protocol,
                    host,
                    port,
                    local_addr=(local_address, 0) if local_address else None,
                )
            # Options are set on the socket before it connects (as anyio does).
            infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
            family, kind, proto, _, address = infos[0]
            sock = socket.socket(family, kind, proto)
            try:
                for option in options:
                    sock.setsockopt(*option)
                sock.setblocking(False)
                if local_address:
                    sock.bind((local_address, 0))
                await loop.sock_connect(sock, address)
            except BaseException:
                sock.close()
                raise
            return await loop.create_connection(_Protocol, sock=sock)

        try:
            async with asyncio.timeout(timeout):
                transport, protocol = await connect()
        except TimeoutError:
            raise httpcore.ConnectTimeout(f"timed out connecting to {host}:{port}") from None
        except OSError as exc:
            raise httpcore.ConnectError(str(exc)) from exc
        return LoopStream(transport, protocol)

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: typing.Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(timeout):
                transport, protocol = await loop.create_unix_connection(_Protocol, path)
        except TimeoutError:
            raise httpcore.ConnectTimeout(f"timed out connecting to {path}") from None
        except OSError as exc:
            raise httpcore.ConnectError(str(exc)) from exc
        return LoopStream(transport, protocol)

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)
