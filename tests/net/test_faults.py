"""Network failures are classified by exception type, the same for every HTTP client."""

from __future__ import annotations

import errno
import socket
import ssl
import threading
from collections.abc import Iterator

import httpcore
import httpx
import pytest
import trustme

from spyglass.llm.client import ModelClient, ModelUnavailable
from spyglass.net.faults import Fault, classify
from spyglass.search.client import MAX_BODY_BYTES
from spyglass.search.model import SearchFailure
from spyglass.search.provider import ProviderRequest
from spyglass.search.providers import PROVIDERS
from spyglass.settings import LLMSettings


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class _RawServer:
    """A loopback TCP server that does one thing to every connection it accepts."""

    def __init__(self, action: str, tls: ssl.SSLContext | None = None) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.action = action
        self.tls = tls
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        self.sock.settimeout(0.05)
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except (TimeoutError, OSError):
                continue
            try:
                if self.tls is not None:
                    with self.tls.wrap_socket(conn, server_side=True):
                        pass
                elif self.action == "close":
                    conn.recv(1024)
                    conn.close()
                elif self.action == "garbage":
                    conn.recv(1024)
                    conn.sendall(b"this is not HTTP at all\r\n\r\n")
                    conn.close()
                else:  # silent: keep the connection open, say nothing
                    self.stop.wait(5)
                    conn.close()
            except (OSError, ssl.SSLError):
                conn.close()

    def close(self) -> None:
        self.stop.set()
        self.thread.join(timeout=5)
        self.sock.close()


@pytest.fixture
def servers() -> Iterator[list[_RawServer]]:
    started: list[_RawServer] = []
    yield started
    for server in started:
        server.close()


async def _failure(url: str, *, verify: ssl.SSLContext | bool = True) -> BaseException:
    async with httpx.AsyncClient(timeout=0.5, trust_env=False, verify=verify) as client:
        with pytest.raises(httpx.HTTPError) as caught:
            await client.get(url)
    return caught.value


async def test_nothing_listening_is_refused() -> None:
    assert classify(await _failure(f"http://127.0.0.1:{_closed_port()}/")) is Fault.REFUSED


async def test_a_silent_server_is_a_timeout(servers: list[_RawServer]) -> None:
    servers.append(server := _RawServer("silent"))
    assert classify(await _failure(f"http://127.0.0.1:{server.port}/")) is Fault.TIMEOUT


@pytest.mark.parametrize("action", ["close", "garbage"])
async def test_a_connection_that_breaks_or_is_not_http_is_broken(
    servers: list[_RawServer], action: str
) -> None:
    servers.append(server := _RawServer(action))
    assert classify(await _failure(f"http://127.0.0.1:{server.port}/")) is Fault.BROKEN


async def test_an_untrusted_certificate_is_a_tls_fault(servers: list[_RawServer]) -> None:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    trustme.CA().issue_cert("127.0.0.1").configure_cert(context)
    servers.append(server := _RawServer("tls", tls=context))
    failure = await _failure(f"https://127.0.0.1:{server.port}/")
    assert classify(failure) is Fault.TLS


def _chained(root: BaseException) -> httpx.ConnectError:
    # The shape httpx gives: its exception raised from httpcore's, which httpcore's pool
    # re-raised ``from None`` (clearing ``__cause__``), raised from the OS error.
    try:
        try:
            try:
                try:
                    raise root
                except OSError as exc:
                    raise httpcore.ConnectError(str(exc)) from exc
            except httpcore.ConnectError as exc:
                raise exc from None
        except httpcore.ConnectError as exc:
            raise httpx.ConnectError(str(exc)) from exc
    except httpx.ConnectError as exc:
        return exc


@pytest.mark.parametrize(
    ("root", "fault"),
    [
        (socket.gaierror(socket.EAI_NONAME, "Name or service not known"), Fault.NAME),
        (socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution"), Fault.NAME),
        (OSError(errno.ENETUNREACH, "Network is unreachable"), Fault.UNREACHABLE),
        (OSError(errno.EHOSTUNREACH, "No route to host"), Fault.UNREACHABLE),
        (ConnectionRefusedError(errno.ECONNREFUSED, "refused"), Fault.REFUSED),
        # A message that mentions TLS does not make it a TLS fault: types decide.
        (OSError(errno.EIO, "ssl tls certificate"), Fault.CONNECT),
    ],
)
def test_the_root_cause_decides_whatever_the_message_says(root: OSError, fault: Fault) -> None:
    assert classify(_chained(root)) is fault


async def test_the_search_client_says_a_refused_provider_may_not_be_running_and_names_no_key() -> (
    None
):
    request = ProviderRequest("GET", f"http://127.0.0.1:{_closed_port()}/search")
    with pytest.raises(SearchFailure) as caught:
        await PROVIDERS["duckduckgo"].exchange(request, timeout=2, max_bytes=MAX_BODY_BYTES)
    assert "refused the connection" in caught.value.message
    assert "base_url" not in caught.value.message


async def test_the_model_client_says_the_server_refused_the_connection() -> None:
    settings = LLMSettings(base_url=f"http://127.0.0.1:{_closed_port()}/v1")
    client = ModelClient(settings)
    try:
        with pytest.raises(ModelUnavailable, match="refused the connection"):
            async for _ in client.stream([{"role": "user", "content": "hi"}]):
                pass
    finally:
        await client.aclose()
