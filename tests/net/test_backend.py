"""httpcore's asyncio backend against real loopback servers: kept connections, TLS, and every
failure as httpx reports it with its default backend."""

from __future__ import annotations

import asyncio
import socket
import ssl
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import httpx
import pytest
import trustme

from spyglass.net.backend import HIGH_WATER, AsyncioBackend
from spyglass.net.pool import CoreTransport

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


class Server:
    """An asyncio server on 127.0.0.1, port 0, counting the connections it accepted."""

    def __init__(self, handler: Handler, tls: ssl.SSLContext | None = None) -> None:
        self.handler = handler
        self.tls = tls
        self.connections = 0
        self.server: asyncio.Server | None = None
        self.tasks: set[asyncio.Task[None]] = set()

    def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        task = asyncio.create_task(self._serve(reader, writer))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await self.handler(reader, writer)
        except (ConnectionError, ssl.SSLError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()

    async def __aenter__(self) -> Server:
        self.server = await asyncio.start_server(self._accept, "127.0.0.1", 0, ssl=self.tls)
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self.server is not None
        self.server.close()
        for task in list(self.tasks):
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        await self.server.wait_closed()

    @property
    def port(self) -> int:
        assert self.server is not None
        port: int = self.server.sockets[0].getsockname()[1]
        return port


async def read_request(reader: asyncio.StreamReader) -> bytes:
    """One request's head and ``Content-Length`` body; ``b""`` at the end of the stream."""
    head = await reader.readuntil(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    return head + await reader.readexactly(length)


def answer(body: bytes) -> bytes:
    return b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)


async def keep_alive(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Answers every request on the connection with ``hello``."""
    while True:
        try:
            await read_request(reader)
        except asyncio.IncompleteReadError:
            return
        writer.write(answer(b"hello"))
        await writer.drain()


def client(**options: object) -> httpx.AsyncClient:
    context = options.pop("ssl_context", None)
    assert context is None or isinstance(context, ssl.SSLContext)
    transport = CoreTransport(AsyncioBackend(), ssl_context=context)
    return httpx.AsyncClient(transport=transport, trust_env=False, **options)  # type: ignore[arg-type]


@pytest.fixture
async def hello() -> AsyncIterator[Server]:
    async with Server(keep_alive) as server:
        yield server


async def test_requests_in_a_row_share_one_kept_connection(hello: Server) -> None:
    async with client() as http:
        for _ in range(3):
            response = await http.get(f"http://127.0.0.1:{hello.port}/")
            assert (response.status_code, response.text) == (200, "hello")
    assert hello.connections == 1


async def test_a_kept_connection_the_server_closed_while_idle_is_not_used_again() -> None:
    async def once(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        # No "Connection: close": the client keeps it, and must notice it was closed.
        writer.write(answer(b"once"))
        await writer.drain()

    async with Server(once) as server, client() as http:
        first = await http.get(f"http://127.0.0.1:{server.port}/")
        deadline = asyncio.get_running_loop().time() + 5
        while server.connections == 1 and asyncio.get_running_loop().time() < deadline:
            second = await http.get(f"http://127.0.0.1:{server.port}/")
            assert second.text == "once"
            if server.connections == 2:
                break
            await asyncio.sleep(0.01)  # the close may not have arrived yet; deadline above
        assert first.text == "once"
        assert server.connections == 2


async def test_a_body_larger_than_the_read_buffer_arrives_whole(hello: Server) -> None:
    big = bytes(range(256)) * (4 * HIGH_WATER // 256)

    async def large(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        writer.write(answer(big))
        await writer.drain()

    pieces = []
    async with (
        Server(large) as server,
        client() as http,
        http.stream("GET", f"http://127.0.0.1:{server.port}/") as response,
    ):
        async for piece in response.aiter_raw():
            pieces.append(piece)
            await asyncio.sleep(0)  # read slower than the server writes
    assert b"".join(pieces) == big


async def test_a_server_that_does_not_answer_in_time_is_a_read_timeout() -> None:
    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        await reader.read()  # holds the connection open without answering

    async with Server(silent) as server, client(timeout=0.2) as http:
        with pytest.raises(httpx.ReadTimeout):
            await http.get(f"http://127.0.0.1:{server.port}/")


async def test_a_server_that_does_not_read_a_large_body_in_time_is_a_write_timeout() -> None:
    async def deaf(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await asyncio.sleep(30)  # reads nothing; cancelled when the server closes

    async with Server(deaf) as server, client(timeout=0.3) as http:
        with pytest.raises(httpx.WriteTimeout):
            await http.post(f"http://127.0.0.1:{server.port}/", content=b"x" * (64 << 20))


async def test_a_closed_port_is_a_connect_error() -> None:
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
        async with client() as http:
            with pytest.raises(httpx.ConnectError):
                await http.get(f"http://127.0.0.1:{port}/")


async def test_a_server_that_hangs_up_mid_answer_is_an_error_in_httpx_terms() -> None:
    async def cut(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nshort")
        await writer.drain()

    async with Server(cut) as server, client() as http:
        with pytest.raises(httpx.RemoteProtocolError):
            await http.get(f"http://127.0.0.1:{server.port}/")


@pytest.fixture(scope="module")
def authority() -> trustme.CA:
    return trustme.CA()


def tls_pair(authority: trustme.CA, name: str) -> tuple[ssl.SSLContext, ssl.SSLContext]:
    server = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    authority.issue_cert(name).configure_cert(server)
    trusting = ssl.create_default_context()
    authority.configure_trust(trusting)
    return server, trusting


async def test_tls_is_spoken_and_the_certificate_is_checked_for_the_name(
    authority: trustme.CA,
) -> None:
    server_context, trusting = tls_pair(authority, "localhost")
    async with Server(keep_alive, tls=server_context) as server:
        async with client(ssl_context=trusting) as http:
            for _ in range(2):
                response = await http.get(f"https://localhost:{server.port}/")
                assert response.text == "hello"
        assert server.connections == 1
        # The same server under a name its certificate does not cover is refused.
        async with client(ssl_context=trusting) as http:
            with pytest.raises(httpx.ConnectError) as refused:
                await http.get(f"https://127.0.0.1:{server.port}/")
        assert "certificate" in str(refused.value).lower()


async def test_a_tls_handshake_nobody_answers_is_a_connect_timeout(authority: trustme.CA) -> None:
    _, trusting = tls_pair(authority, "localhost")

    async def mute(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read()  # accepts the connection, never speaks TLS

    async with Server(mute) as server, client(ssl_context=trusting, timeout=0.2) as http:
        with pytest.raises(httpx.ConnectTimeout):
            await http.get(f"https://localhost:{server.port}/")


async def test_socket_options_are_set_before_the_connection_is_made(hello: Server) -> None:
    option = (socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
    stream = await AsyncioBackend().connect_tcp("127.0.0.1", hello.port, socket_options=[option])
    try:
        sock = stream.get_extra_info("socket")
        assert sock.getsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE) == 1
        await stream.write(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        assert (await stream.read(65536, timeout=5)).endswith(b"hello")
        assert stream.get_extra_info("server_addr")[1] == hello.port
    finally:
        await stream.aclose()


async def test_a_unix_socket_is_a_stream_like_any_other(tmp_path: Path) -> None:
    path = str(tmp_path / "s")
    served = Server(keep_alive)
    server = await asyncio.start_unix_server(served._accept, path)
    try:
        stream = await AsyncioBackend().connect_unix_socket(path, timeout=5)
        await stream.write(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        assert (await stream.read(65536, timeout=5)).endswith(b"hello")
        await stream.aclose()
    finally:
        server.close()
        for task in list(served.tasks):
            task.cancel()
        await asyncio.gather(*served.tasks, return_exceptions=True)
        await server.wait_closed()
