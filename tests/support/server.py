"""Running the real app under uvicorn on a loopback ephemeral port, in a thread."""

from __future__ import annotations

import asyncio
import re
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
import uvicorn

from spyglass.runtime import Runtime
from spyglass.service import server as service_server
from spyglass.service.app import create_app

#: Both event loops the service can run on, for tests that must pass on each.
LOOPS = [
    pytest.param(
        "uvloop",
        marks=pytest.mark.skipif(
            service_server.event_loop() != "uvloop", reason="uvloop is not installed here"
        ),
    ),
    "asyncio",
]


def wait_until(predicate: Callable[[], bool], timeout: float = 10.0, what: str = "it") -> None:
    """Poll ``predicate`` until true, failing after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(0.01)


@contextmanager
def running_service(
    runtime: Runtime, *, loop: str | None = None, **options: Any
) -> Iterator[tuple[str, str]]:
    """Yields ``(base_url, api_token)`` of a real uvicorn server for ``runtime``;
    ``options`` go to ``create_app``. ``loop`` (``"uvloop"`` or ``"asyncio"``) is the event
    loop it must run on; by default the one ``spyglass serve`` picks."""
    # IPPROTO_TCP so asyncio turns Nagle off, as it does for sockets uvicorn binds itself.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    app = create_app(runtime, port=port, **options)
    # Configured as `spyglass serve` configures it (its own protocol, no WebSocket).
    config = service_server.config(app, **({"loop": loop} if loop else {}))
    server = uvicorn.Server(config)
    loops: list[asyncio.AbstractEventLoop] = []

    def run() -> None:
        # What uvicorn's Server.run does, keeping the loop to check which one it is.
        with asyncio.Runner(loop_factory=config.get_loop_factory()) as runner:
            loops.append(runner.get_loop())
            runner.run(server.serve(sockets=[sock]))

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    try:
        wait_until(lambda: server.started, what="uvicorn to start")
        wanted = loop or service_server.event_loop()
        running = type(loops[0]).__module__.split(".")[0]
        assert running == wanted, f"the service runs on {running}'s loop, not {wanted}'s"
        yield f"http://127.0.0.1:{port}", app.state.spyglass.auth.token
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


def exchange(base: str, raw: bytes) -> tuple[int, dict[str, str], bytes]:
    """Send ``raw`` on a fresh connection; read one answer (its Content-Length, or to close)."""
    host_port = base.removeprefix("http://")
    host, port = host_port.rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=10) as connection:
        connection.sendall(raw.replace(b"{host}", host_port.encode()))
        received = b""
        while chunk := connection.recv(65536):
            received += chunk
            head, found, body = received.partition(b"\r\n\r\n")
            length = re.search(rb"(?im)^content-length:\s*(\d+)", head)
            if found and length and len(body) >= int(length.group(1)):
                break
    head, _, body = received.partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    headers: dict[str, str] = {}
    for line in header_lines:
        name, _, value = line.partition(":")
        assert name.lower() not in headers, f"{name} sent twice"
        headers[name.lower()] = value.strip()
    return int(status_line.split()[1]), headers, body
