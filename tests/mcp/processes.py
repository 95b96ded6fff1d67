"""Running the real ``spyglass mcp`` as a subprocess, with deadlines on every wait."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from mcp import Client

from spyglass.paths import Paths
from tests.mcp.support import Owner

SPYGLASS = str(Path(sys.executable).with_name("spyglass"))
DEADLINE_SECONDS = 30.0

#: A raw JSON-RPC ``initialize`` request, for tests that speak the wire protocol by hand.
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"},
    },
}


def environment(home: Path, **settings: str) -> dict[str, str]:
    """This process's environment without outside SPYGLASS_* settings, plus ``settings``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SPYGLASS_")}
    env["SPYGLASS_HOME"] = str(home)
    env.update(settings)
    return env


class Lines:
    """Reads a pipe line by line on a thread so the test can wait with a deadline."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream
        self.seen: list[str] = []
        self._queue: queue.Queue[str | None] = queue.Queue()
        self._thread = threading.Thread(target=self._pump, args=(stream,), daemon=True)
        self._thread.start()

    def _pump(self, stream: IO[str]) -> None:
        for line in stream:
            self._queue.put(line)
        self._queue.put(None)

    def close(self) -> None:
        """After the process ended: let the pump reach end of stream, then close the pipe."""
        self._thread.join(timeout=DEADLINE_SECONDS)
        self.stream.close()

    def next(self, timeout: float = DEADLINE_SECONDS) -> str | None:
        """The next line, ``None`` at end of stream; ``queue.Empty`` past the deadline."""
        line = self._queue.get(timeout=timeout)
        if line is not None:
            self.seen.append(line)
        return line

    def until(self, marker: str, timeout: float = DEADLINE_SECONDS) -> str:
        while True:
            line = self.next(timeout)
            if line is None:
                raise AssertionError(f"stream ended before {marker!r}: {self.seen}")
            if marker in line:
                return line

    def rest(self, timeout: float = DEADLINE_SECONDS) -> list[str]:
        while self.next(timeout) is not None:
            pass
        return self.seen


@dataclass
class HTTPServer:
    url: str
    process: subprocess.Popen[str]
    stderr: Lines

    @property
    def port(self) -> int:
        return int(self.url.rsplit(":", 1)[1].split("/", 1)[0])


@contextmanager
def http_server(env: dict[str, str], *flags: str) -> Iterator[HTTPServer]:
    """``spyglass mcp --http --port 0``; yields once it has announced its URL."""
    process = subprocess.Popen(
        [SPYGLASS, *flags, "mcp", "--http", "--port", "0"],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    stderr = Lines(process.stderr)
    try:
        line = stderr.until("http://127.0.0.1:")
        url = line[line.index("http://") :].split()[0]
        yield HTTPServer(url, process, stderr)
    finally:
        process.terminate()
        try:
            process.wait(timeout=DEADLINE_SECONDS)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=DEADLINE_SECONDS)
        stderr.close()


def owner_token(home: Path) -> str:
    """The owner's API token, written by the server as it starts."""
    return Paths(home).api_token_file.read_text(encoding="utf-8").strip()


@asynccontextmanager
async def http_client(
    url: str, token: str, mode: str = "auto", owner: Owner | None = None
) -> AsyncIterator[Client]:
    """The SDK client over Streamable HTTP, sending ``token`` as a bearer credential."""
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    headers = {"Authorization": f"Bearer {token}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=30, trust_env=False) as http,
        Client(
            streamable_http_client(url, http_client=http), mode=mode, elicitation_callback=owner
        ) as client,
    ):
        yield client


@dataclass
class RawStdio:
    """A ``spyglass mcp`` spoken to in raw JSON-RPC lines, to see every byte of stdout."""

    process: subprocess.Popen[str]
    stdout: Lines
    stderr: Lines
    sent: list[dict[str, Any]] = field(default_factory=list)

    def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message) + "\n")
        self.process.stdin.flush()
        self.sent.append(message)

    def response(self, request_id: int | None) -> dict[str, Any]:
        """The next answer to ``request_id`` (``None``: an error that could name no request)."""
        while True:
            line = self.stdout.next()
            if line is None:
                raise AssertionError(f"stdout ended before response {request_id}")
            message = json.loads(line)
            if "method" not in message and message.get("id") == request_id:
                return dict(message)


@contextmanager
def raw_stdio(env: dict[str, str], *flags: str) -> Iterator[RawStdio]:
    process = subprocess.Popen(
        [SPYGLASS, *flags, "mcp"],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None and process.stderr is not None
    raw = RawStdio(process, Lines(process.stdout), Lines(process.stderr))
    try:
        yield raw
    finally:
        if process.stdin is not None and not process.stdin.closed:
            process.stdin.close()
        try:
            process.wait(timeout=DEADLINE_SECONDS)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=DEADLINE_SECONDS)
        raw.stdout.close()
        raw.stderr.close()
