"""Cheap peers for the service benchmark: the fake model and a SearXNG-shaped provider.

The test peers are threaded ``http.server``s that, on two shared cores, would set the
50-client figure themselves; these answer the same requests (the same bytes, from the same
:class:`Reply` builders) on one asyncio loop with a small keep-alive HTTP/1.1 parser.

    async with PeerServer(model_answer(choose)) as model, PeerServer(SEARXNG) as provider:
        model.url, provider.url
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import TracebackType
from typing import Any, Self
from urllib.parse import parse_qs, urlsplit

from tests.support.fake_model import Reply, _chunk
from tests.support.searxng import RESULTS

#: A handler: (method, target, body) to the whole response, status line included.
Handler = Callable[[str, str, bytes], bytes]

_STATUS = {200: "OK", 400: "Bad Request", 404: "Not Found", 411: "Length Required"}
#: Past this, a request head is refused rather than buffered.
MAX_HEAD = 64 * 1024


def response(status: int, content_type: str, body: bytes) -> bytes:
    """A whole HTTP/1.1 response with a ``Content-Length``."""
    return (
        f"HTTP/1.1 {status} {_STATUS.get(status, 'Error')}\r\n"
        f"Content-Type: {content_type}\r\nContent-Length: {len(body)}\r\n\r\n"
    ).encode() + body


def sse(reply: Reply) -> bytes:
    """``reply`` as the fake model streams it: one chunk per SSE event, then ``[DONE]``."""
    events = [_chunk(delta, None) for delta in reply.deltas]
    events.append(_chunk({}, reply.finish_reason))
    if reply.send_done:
        events.append(b"data: [DONE]\n\n")
    chunked = b"".join(f"{len(e):x}\r\n".encode() + e + b"\r\n" for e in events)
    head = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n"
    return head + b"\r\n" + chunked + b"0\r\n\r\n"


def model_answer(choose: Callable[[dict[str, Any]], Reply]) -> Handler:
    """The model at ``/v1/chat/completions``: ``choose`` picks the reply for each request
    body; each reply object is rendered to bytes once."""
    rendered: dict[int, tuple[Reply, bytes]] = {}

    def handle(method: str, target: str, body: bytes) -> bytes:
        if method != "POST" or not target.endswith("/chat/completions"):
            return response(404, "application/json", b'{"error": "not found"}')
        try:
            request = json.loads(body or b"{}")
        except ValueError:
            return response(400, "application/json", b'{"error": "not JSON"}')
        reply = choose(request)
        if reply.status != 200:
            return response(reply.status, "application/json", reply.error_body)
        cached = rendered.get(id(reply))
        if cached is None or cached[0] is not reply:
            cached = rendered[id(reply)] = (reply, sse(reply))
        return cached[1]

    return handle


def searxng(method: str, target: str, body: bytes) -> bytes:
    """SearXNG's ``GET /search?format=json``, with the same two results as the test peer."""
    parts = urlsplit(target)
    if method != "GET" or parts.path != "/search":
        return response(404, "application/json", b'{"error": "not found"}')
    query = parse_qs(parts.query).get("q", [""])[0]
    answer = {"query": query, "results": RESULTS, "unresponsive_engines": []}
    return response(200, "application/json", json.dumps(answer).encode())


class _Connection(asyncio.Protocol):
    def __init__(self, handle: Handler, open_: set[asyncio.Transport]) -> None:
        self.handle = handle
        self.open = open_
        self.buffer = bytearray()
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        self.open.add(transport)
        sock = transport.get_extra_info("socket")
        if sock is not None:
            # Answers are small writes: never wait for a delayed ACK.
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def connection_lost(self, exc: Exception | None) -> None:
        if self.transport is not None:
            self.open.discard(self.transport)

    def data_received(self, data: bytes) -> None:
        assert self.transport is not None
        self.buffer += data
        while True:
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                if len(self.buffer) > MAX_HEAD:
                    self._fail(400)
                return
            lines = bytes(self.buffer[:end]).decode("latin-1").split("\r\n")
            try:
                method, target, _ = lines[0].split(" ", 2)
                headers = {
                    name.strip().lower(): value.strip()
                    for name, value in (line.split(":", 1) for line in lines[1:])
                }
                length = int(headers.get("content-length", "0"))
            except ValueError:
                self._fail(400)
                return
            if "chunked" in headers.get("transfer-encoding", "").lower():
                self._fail(411)
                return
            if len(self.buffer) < end + 4 + length:
                return
            body = bytes(self.buffer[end + 4 : end + 4 + length])
            del self.buffer[: end + 4 + length]
            self.transport.write(self.handle(method, target, body))
            if headers.get("connection", "").lower() == "close":
                self.transport.close()
                return

    def _fail(self, status: int) -> None:
        assert self.transport is not None
        self.transport.write(response(status, "text/plain", b"bad request"))
        self.transport.close()


class PeerServer:
    """``handle`` served on 127.0.0.1 and a free port while the ``async with`` block runs."""

    def __init__(self, handle: Handler) -> None:
        self.handle = handle
        self._server: asyncio.Server | None = None
        self._open: set[asyncio.Transport] = set()

    @property
    def url(self) -> str:
        assert self._server is not None
        host, port = self._server.sockets[0].getsockname()[:2]
        return f"http://{host}:{port}"

    async def __aenter__(self) -> Self:
        loop = asyncio.get_running_loop()
        self._server = await loop.create_server(
            lambda: _Connection(self.handle, self._open), "127.0.0.1", 0, backlog=512
        )
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        assert self._server is not None
        self._server.close()
        # Keep-alive connections still open are closed with the server.
        for transport in list(self._open):
            transport.close()
        await self._server.wait_closed()


async def serve(choose: Callable[[dict[str, Any]], Reply]) -> None:
    """The model answering with ``choose`` and the provider until stdin closes; first their
    URLs as one line of JSON (the child process of :func:`child`)."""
    async with PeerServer(model_answer(choose)) as model, PeerServer(searxng) as provider:
        print(json.dumps({"model": f"{model.url}/v1", "provider": provider.url}), flush=True)
        await asyncio.to_thread(sys.stdin.read)


@contextmanager
def child(*argv: str) -> Iterator[dict[str, str]]:
    """``python -m *argv`` serving its peers in a child process (off the clients' GIL)."""
    process = subprocess.Popen(
        [sys.executable, "-m", *argv],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    try:
        assert process.stdout is not None
        yield json.loads(process.stdout.readline())
    finally:
        if process.stdin is not None:
            process.stdin.close()
        process.wait(10)
