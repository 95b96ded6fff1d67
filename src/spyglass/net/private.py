"""The owner's own network, opened on purpose: ``fetch.private_network``.

By default ``web.fetch`` reads only the public web. An owner who wants the assistant to read a
home wiki or a NAS lists those hosts, by name (``wiki.home.arpa``) or by address or range
(``192.168.1.20``, ``192.168.1.0/24``). Every such call is still approved by the owner, and
the approval card says it reaches the home network.

The opening is narrow on purpose:

* only the hosts the URL itself names are opened: a listed name, or a literal address inside a
  listed range. A public name whose DNS answer points inside the home network is refused as
  before, so the approval card (decided before DNS) is never wrong about where a call goes;
* a listed name may resolve only to public or *private-use* addresses (RFC 1918, shared
  CGNAT space, IPv6 unique-local), never to loopback, link-local, cloud metadata or any other
  special-use block; ranges may only be given inside the private-use blocks;
* the check is by the address actually dialled (every DNS answer, then the connected peer).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from ipaddress import IPv4Network, IPv6Network

from spyglass.net import hostnames
from spyglass.net.addresses import IPAddress, refusal

SETTING = "fetch.private_network"

#: What :func:`spyglass.net.addresses.refusal` calls the blocks of
#: :data:`spyglass.net.hostnames.PRIVATE_USE`; a metadata address inside them is labelled
#: ``metadata`` and so is never openable.
_OPENABLE_LABELS = frozenset({"private", "shared-cgnat", "unique-local"})

NOTICE_KIND = "fetch.private_network"
NOTICE_MESSAGE = (
    "This reads a host on your own network, not the public web "
    "(allowed by fetch.private_network). Approve only if the assistant should see it."
)


def private_use(address: IPAddress) -> bool:
    """Whether ``address`` is in a private-use block an owner may open (never metadata)."""
    why = refusal(address)
    return why is not None and why.label in _OPENABLE_LABELS


@dataclass(frozen=True)
class PrivateNetwork:
    """The hosts of the owner's network that ``web.fetch`` may read (empty: none)."""

    names: frozenset[str] = frozenset()
    ranges: tuple[IPv4Network | IPv6Network, ...] = ()

    @classmethod
    def parse(cls, entries: Iterable[str]) -> PrivateNetwork:
        """Build from raw entries (:class:`~spyglass.net.hostnames.HostnameError` if one is bad)."""
        return cls.from_normalised(hostnames.private_network_entry(entry) for entry in entries)

    @classmethod
    def from_normalised(cls, entries: Iterable[str]) -> PrivateNetwork:
        """Build from entries the settings model already normalised."""
        names: set[str] = set()
        ranges: list[IPv4Network | IPv6Network] = []
        for value in entries:
            network = hostnames.as_network(value)
            if network is None:
                names.add(value)
            else:
                ranges.append(network)
        return cls(frozenset(names), tuple(ranges))

    def __bool__(self) -> bool:
        return bool(self.names or self.ranges)

    def names_host(self, host: str) -> bool:
        """Whether the normalised name ``host`` is one the owner listed."""
        return host in self.names

    def opens(self, address: IPAddress) -> bool:
        """Whether the literal ``address`` lies in a listed range and may be opened."""
        return private_use(address) and any(
            address.version == network.version and address in network for network in self.ranges
        )


__all__ = ["NOTICE_KIND", "NOTICE_MESSAGE", "SETTING", "PrivateNetwork", "private_use"]
