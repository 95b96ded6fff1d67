"""Name resolution for the fetcher: one lookup per connection, every answer returned.

The HTTP client never resolves names itself; the pinned transport asks a :class:`Resolver`
and dials one of the answers it checked. Tests provide a resolver with fixed answers.
"""

from __future__ import annotations

import asyncio
import socket
from typing import Protocol

from spyglass.errors import UpstreamError
from spyglass.net.addresses import IPAddress, parse_address


class ResolutionError(UpstreamError):
    """The name has no usable address (no such name, or the resolver failed)."""


class Resolver(Protocol):
    """Turns a host name into every address it currently has."""

    async def resolve(self, host: str, port: int) -> list[IPAddress]: ...


class SystemResolver:
    """The operating system's resolver (``getaddrinfo``), run off the event loop."""

    async def resolve(self, host: str, port: int) -> list[IPAddress]:
        loop = asyncio.get_running_loop()
        try:
            # The host is already ASCII (A-labels): getaddrinfo's own IDNA step has nothing
            # left to reinterpret.
            infos = await loop.getaddrinfo(
                host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP
            )
        except (socket.gaierror, UnicodeError) as exc:
            raise ResolutionError(str(exc)) from None
        answers: list[IPAddress] = []
        for _family, _type, _proto, _canon, sockaddr in infos:
            try:
                address = parse_address(str(sockaddr[0]))
            except ValueError:
                continue
            if address not in answers:
                answers.append(address)
        if not answers:
            raise ResolutionError("no addresses")
        return answers
