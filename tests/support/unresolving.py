"""Provider clients whose host names cannot be looked up: a DNS failure without the network."""

from __future__ import annotations

import contextlib
import socket
from collections.abc import AsyncIterator, Callable, Collection

import httpx

from spyglass.providers.clients import ProviderClients


def _no_such_name(request: httpx.Request) -> httpx.Response:
    # The shape a real lookup failure has: httpx's ConnectError raised from the OS's error.
    try:
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
    except socket.gaierror as exc:
        raise httpx.ConnectError(str(exc), request=request) from exc


class Unresolving(ProviderClients):
    """A fresh client per exchange, as without a pool; the providers named in ``names`` (every
    one when ``None``) have a name no resolver knows."""

    def __init__(self, names: Collection[str] | None = None) -> None:
        super().__init__(pooled=False)
        self.names = names
        self.tried: list[str] = []

    @contextlib.asynccontextmanager
    async def client(
        self, provider: str, make: Callable[[], httpx.AsyncClient]
    ) -> AsyncIterator[httpx.AsyncClient]:
        self.tried.append(provider)
        if self.names is not None and provider not in self.names:
            async with make() as fresh:
                yield fresh
            return
        async with httpx.AsyncClient(transport=httpx.MockTransport(_no_such_name)) as fake:
            yield fake
