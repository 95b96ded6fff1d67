"""Opening the TCP connection to an address that was already checked.

A :class:`Dialler` is given an IP address, never a name, so nothing below it can resolve
again. The production dialler checks the peer address of the socket it opened once more;
tests provide a dialler that sends "public" addresses to loopback servers.
"""

from __future__ import annotations

from typing import Protocol

import httpcore

from spyglass.errors import UpstreamError
from spyglass.net.addresses import IPAddress, parse_address, refusal
from spyglass.net.private import private_use


class PeerRefused(UpstreamError):
    """The socket ended up connected to an address that is not allowed."""


class Dialler(Protocol):
    """Connects to ``address``:``port`` and returns an httpcore network stream."""

    async def connect(
        self, address: IPAddress, port: int, timeout: float | None
    ) -> httpcore.AsyncNetworkStream: ...


class SystemDialler:
    """Plain TCP on Spyglass's asyncio backend, with the peer address re-checked."""

    def __init__(self, backend: httpcore.AsyncNetworkBackend | None = None) -> None:
        from spyglass.net.backend import AsyncioBackend

        self._backend = backend or AsyncioBackend()

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
    """The socket's remote address must be the checked one and still allowed.

    ``expected`` was checked by the guarded backend, including any private-use address the
    owner opened (``fetch.private_network``); the peer must be exactly it, never a special-use
    address outside private-use space. A private-use peer must not be this machine itself
    (a socket whose local and remote addresses are equal was routed back to the host Spyglass
    runs on): opening the home network never opens Spyglass's own services.
    """
    peer = stream.get_extra_info("server_addr")
    if not peer:
        raise PeerRefused("the connection has no peer address")
    try:
        actual = parse_address(str(peer[0]))
    except ValueError:
        raise PeerRefused("the peer address cannot be read") from None
    if actual != expected or (refusal(actual) is not None and not private_use(actual)):
        raise PeerRefused("the connection reached an address other than the checked one")
    local = stream.get_extra_info("client_addr") if refusal(actual) is not None else None
    if local and _same_address(str(local[0]), actual):
        raise PeerRefused("the connection leads back to this machine")


def _same_address(text: str, address: IPAddress) -> bool:
    try:
        return parse_address(text) == address
    except ValueError:
        return False
