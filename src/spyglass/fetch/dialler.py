"""Opening the TCP connection to an address that was already checked.

A :class:`Dialler` is given an IP address, never a name, so nothing below it can resolve
again. The production dialler checks the peer address of the socket it opened once more;
tests provide a dialler that sends "public" addresses to loopback servers.
"""

from __future__ import annotations

from typing import Protocol

import httpcore

from spyglass.errors import UpstreamError
from spyglass.fetch.addresses import IPAddress, parse_address, refusal


class PeerRefused(UpstreamError):
    """The socket ended up connected to an address that is not allowed."""


class Dialler(Protocol):
    """Connects to ``address``:``port`` and returns an httpcore network stream."""

    async def connect(
        self, address: IPAddress, port: int, timeout: float | None
    ) -> httpcore.AsyncNetworkStream: ...


class SystemDialler:
    """Plain TCP through httpcore's anyio backend, with the peer address re-checked."""

    def __init__(self, backend: httpcore.AsyncNetworkBackend | None = None) -> None:
        self._backend = backend or httpcore.AnyIOBackend()

    async def connect(
        self, address: IPAddress, port: int, timeout: float | None
    ) -> httpcore.AsyncNetworkStream:
        stream = await self._backend.connect_tcp(str(address), port, timeout=timeout)
        try:
            check_peer(stream, address)
        except BaseException:
            await stream.aclose()
            raise
        return stream


def check_peer(stream: httpcore.AsyncNetworkStream, expected: IPAddress) -> None:
    """The socket's remote address must be the checked one and still allowed."""
    peer = stream.get_extra_info("server_addr")
    if not peer:
        raise PeerRefused("the connection has no peer address")
    try:
        actual = parse_address(str(peer[0]))
    except ValueError:
        raise PeerRefused("the peer address cannot be read") from None
    if refusal(actual) is not None or actual != expected:
        raise PeerRefused("the connection reached an address other than the checked one")
