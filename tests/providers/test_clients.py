"""Provider clients: kept connections for a long-running service, nothing kept otherwise."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator

import pytest

from spyglass.providers.clients import NO_POOL, ProviderClients
from spyglass.providers.exchange import ProviderRequest, send
from spyglass.search.model import FAILURES
from tests.support.loopback import LoopbackServer, QuietHandler


class CookieSetter(LoopbackServer):
    """An HTTP/1.1 peer that sets a cookie on every answer and records who asked."""

    def __init__(self) -> None:
        self.peers: list[tuple[str, int]] = []
        self.cookies: list[str | None] = []
        owner = self

        class Handler(QuietHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                owner.peers.append(self.client_address[:2])
                owner.cookies.append(self.headers.get("Cookie"))
                body = b'{"results": []}'
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Set-Cookie", "tracker=1; Path=/")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        super().__init__(Handler)


@pytest.fixture
def peer() -> Iterator[CookieSetter]:
    with CookieSetter() as server:
        yield server


async def ask(peer: CookieSetter, clients: ProviderClients) -> int:
    request = ProviderRequest("GET", f"{peer.url}/search", params={"q": "otters"})
    response = await send(
        "searxng", request, timeout=5, max_bytes=1 << 20, failures=FAILURES, clients=clients
    )
    return response.status


async def test_a_pooled_provider_is_asked_again_on_the_same_connection(
    peer: CookieSetter,
) -> None:
    clients = ProviderClients()
    try:
        assert [await ask(peer, clients) for _ in range(3)] == [200, 200, 200]
    finally:
        await clients.aclose()
    assert len(set(peer.peers)) == 1, peer.peers


async def test_a_kept_client_never_sends_a_providers_cookie_back(peer: CookieSetter) -> None:
    clients = ProviderClients()
    try:
        await ask(peer, clients)
        await ask(peer, clients)
    finally:
        await clients.aclose()
    assert peer.cookies == [None, None]


async def test_without_a_pool_every_exchange_has_its_own_connection(peer: CookieSetter) -> None:
    await ask(peer, NO_POOL)
    await ask(peer, NO_POOL)
    assert len(set(peer.peers)) == 2


async def test_a_pool_asked_from_another_event_loop_lends_a_client_it_closes_itself(
    peer: CookieSetter,
) -> None:
    clients = ProviderClients()
    await ask(peer, clients)
    statuses: list[int] = []
    # Another thread, another loop: the pooled client belongs to this one.
    other = threading.Thread(target=lambda: statuses.append(asyncio.run(ask(peer, clients))))
    other.start()
    other.join(10)
    await ask(peer, clients)
    await clients.aclose()
    assert statuses == [200]
    assert len(set(peer.peers)) == 2
    assert peer.peers[0] == peer.peers[2]
