"""Pooled HTTP clients for hosted providers: one per provider, kept for the life of a service.

Without a pool every exchange builds a client, connects, and closes the connection again
(a TCP connect and close per search, about a millisecond and a half of the event loop's time
on a loaded machine). A long-running front end (``spyglass serve``) provides a
:class:`ProviderClients` under :data:`PROVIDER_CLIENTS` and closes it at shutdown; anything
else (one CLI command, a test's runtime) gets :data:`NO_POOL` and a fresh client per exchange,
so nothing is left open by an owner that never closes it.

A pooled client belongs to the event loop that made it: an exchange on another loop gets a
client of its own, closed after it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING

from spyglass.core.context import SeamKey

if TYPE_CHECKING:
    import ssl

    import httpx


#: Idle connections a pooled client keeps to one provider.
KEPT_CONNECTIONS = 4


class ProviderClients:
    """One keep-alive ``httpx.AsyncClient`` per provider name; close with :meth:`aclose`.

    ``make`` builds a client for a total ``timeout`` (the per-request deadline is set on
    each request anyway). With ``pooled=False`` every :meth:`client` is a new one, closed
    when its block ends.
    """

    def __init__(self, *, pooled: bool = True) -> None:
        self.pooled = pooled
        self._clients: dict[str, httpx.AsyncClient] = {}
        self._loop: asyncio.AbstractEventLoop | None = None

    @contextlib.asynccontextmanager
    async def client(
        self, provider: str, make: Callable[[], httpx.AsyncClient]
    ) -> AsyncIterator[httpx.AsyncClient]:
        """The client for ``provider``: the pooled one, or a new one closed after the block."""
        loop = asyncio.get_running_loop()
        if self.pooled and self._loop is None:
            self._loop = loop
        if not self.pooled or loop is not self._loop:
            async with make() as fresh:
                yield fresh
            return
        pooled = self._clients.get(provider)
        if pooled is None:
            pooled = self._clients[provider] = make()
        yield pooled

    async def aclose(self) -> None:
        """Close every pooled client (on the loop that made them)."""
        clients, self._clients = list(self._clients.values()), {}
        for client in clients:
            await client.aclose()


#: Every exchange makes its own client: the default for short-lived owners.
NO_POOL = ProviderClients(pooled=False)

#: The provider clients of this runtime; ``spyglass serve`` provides a pooled one.
PROVIDER_CLIENTS: SeamKey[ProviderClients] = SeamKey("provider_clients", lambda settings: NO_POOL)


def make_client(timeout: float, context: ssl.SSLContext) -> httpx.AsyncClient:
    """A provider client: no redirects (they would carry the key elsewhere), no proxy, no
    cookies kept."""
    from http.cookiejar import CookieJar, DefaultCookiePolicy

    import httpx

    from spyglass.net.backend import AsyncioBackend
    from spyglass.net.pool import CoreTransport

    return httpx.AsyncClient(
        # Straight on asyncio, not through anyio (spyglass.net.backend).
        transport=CoreTransport(
            AsyncioBackend(),
            ssl_context=context,
            # httpcore looks at every pooled connection whenever a request starts or ends: a
            # burst of searches must not leave dozens behind for every later search to check.
            limits=httpx.Limits(max_keepalive_connections=KEPT_CONNECTIONS),
        ),
        # A kept client must not carry one search's cookies into the next: none are stored.
        cookies=CookieJar(DefaultCookiePolicy(allowed_domains=[])),
        timeout=httpx.Timeout(timeout),
        follow_redirects=False,
        # Providers are reached directly: no proxy or netrc from the environment.
        trust_env=False,
    )
