"""Which IP addresses ``web.fetch`` may dial: an explicit table, not ``ipaddress.is_global``.

``is_global`` passes multicast, NAT64 and IPv4-compatible forms of loopback, and its answer
changes between CPython patch releases, so the decision is made here from a table that is
the same on every interpreter. IPv6 forms that carry an IPv4 address (mapped, compatible,
translated, NAT64, 6to4, Teredo, ISATAP) are judged by the IPv4 address they carry.
"""

from __future__ import annotations

from dataclasses import dataclass
from ipaddress import IPv4Address, IPv4Network, IPv6Address, IPv6Network, ip_address

IPAddress = IPv4Address | IPv6Address


@dataclass(frozen=True)
class Refusal:
    """Why an address is refused: a label for people and tests, never shown with the IP."""

    label: str


_V4_REFUSED: tuple[tuple[str, str], ...] = (
    ("0.0.0.0/8", "this-network"),
    ("10.0.0.0/8", "private"),
    ("100.64.0.0/10", "shared-cgnat"),
    ("127.0.0.0/8", "loopback"),
    ("169.254.0.0/16", "link-local"),
    ("172.16.0.0/12", "private"),
    ("192.0.0.0/24", "ietf-protocol"),
    ("192.0.2.0/24", "documentation"),
    ("192.88.99.0/24", "6to4-relay"),
    ("192.168.0.0/16", "private"),
    ("198.18.0.0/15", "benchmarking"),
    ("198.51.100.0/24", "documentation"),
    ("203.0.113.0/24", "documentation"),
    ("224.0.0.0/4", "multicast"),
    ("240.0.0.0/4", "reserved"),
)

#: Cloud metadata endpoints that sit in otherwise public space (Azure WireServer) or that are
#: worth naming on their own; the ranges above already cover most of them.
_V4_METADATA = frozenset(
    IPv4Address(a) for a in ("168.63.129.16", "169.254.169.254", "100.100.100.200")
)
_V6_METADATA = frozenset(
    IPv6Address(a) for a in ("fd00:ec2::254", "fd00:ec2::23", "fd20:ce::254", "fd00:42::42")
)

#: IPv6 space refused outright. Everything outside 2000::/3 is refused as well (below), so
#: this lists only the special blocks inside global unicast space plus named ones for labels.
_V6_REFUSED: tuple[tuple[str, str], ...] = (
    ("2001:db8::/32", "documentation"),
    ("3fff::/20", "documentation"),
    ("2001::/23", "ietf-protocol"),
    ("5f00::/16", "srv6"),
    ("fc00::/7", "unique-local"),
    ("fe80::/10", "link-local"),
    ("fec0::/10", "site-local"),
    ("ff00::/8", "multicast"),
    ("100::/64", "discard"),
    ("64:ff9b:1::/48", "nat64-local"),
)

V4_TABLE = tuple((IPv4Network(net), label) for net, label in _V4_REFUSED)
V6_TABLE = tuple((IPv6Network(net), label) for net, label in _V6_REFUSED)

_GLOBAL_UNICAST = IPv6Network("2000::/3")
_MAPPED = IPv6Network("::ffff:0:0/96")
_COMPATIBLE = IPv6Network("::/96")
_TRANSLATED = IPv6Network("::ffff:0:0:0/96")
_NAT64 = IPv6Network("64:ff9b::/96")
_SIX_TO_FOUR = IPv6Network("2002::/16")
_TEREDO = IPv6Network("2001::/32")


def refusal(address: IPAddress) -> Refusal | None:
    """``None`` when ``address`` may be dialled; otherwise why it may not."""
    if isinstance(address, IPv4Address):
        return _refuse_v4(address)
    return _refuse_v6(address)


def is_allowed(address: IPAddress) -> bool:
    return refusal(address) is None


def _refuse_v4(address: IPv4Address) -> Refusal | None:
    if address in _V4_METADATA:
        return Refusal("metadata")
    for network, label in V4_TABLE:
        if address in network:
            return Refusal(label)
    return None


def _refuse_v6(address: IPv6Address) -> Refusal | None:
    # A zone id (fe80::1%eth0) names an interface on this machine: never a web server.
    if address.scope_id is not None:
        return Refusal("scoped")
    plain = IPv6Address(int(address))
    if plain in _V6_METADATA:
        return Refusal("metadata")
    if plain == IPv6Address("::"):
        return Refusal("unspecified")
    if plain == IPv6Address("::1"):
        return Refusal("loopback")
    embedded = _embedded_v4(plain)
    if embedded is not None:
        inner = _refuse_v4(embedded)
        return Refusal(f"embedded-{inner.label}") if inner else None
    for network, label in V6_TABLE:
        if plain in network:
            return Refusal(label)
    if plain not in _GLOBAL_UNICAST:
        return Refusal("not-global-unicast")
    isatap = _isatap_v4(plain)
    if isatap is not None:
        inner = _refuse_v4(isatap)
        return Refusal(f"embedded-{inner.label}") if inner else None
    return None


def _embedded_v4(address: IPv6Address) -> IPv4Address | None:
    """The IPv4 address an IPv6 transition form carries, or ``None`` for a native address."""
    value = int(address)
    low32 = IPv4Address(value & 0xFFFFFFFF)
    if address in _MAPPED or address in _TRANSLATED or address in _NAT64:
        return low32
    if address in _COMPATIBLE:
        return low32
    if address in _SIX_TO_FOUR:
        return IPv4Address((value >> 80) & 0xFFFFFFFF)
    if address in _TEREDO:
        # Teredo hides the client's address bit-inverted in the low 32 bits; the server's
        # address is plain in bits 64..95. Both must be acceptable, so take the worse one.
        client = IPv4Address(~value & 0xFFFFFFFF)
        server = IPv4Address((value >> 64) & 0xFFFFFFFF)
        return client if _refuse_v4(client) is not None else server
    return None


def _isatap_v4(address: IPv6Address) -> IPv4Address | None:
    """ISATAP interface ids (``::0:5efe:a.b.c.d``, ``::200:5efe:a.b.c.d``) carry an IPv4."""
    value = int(address)
    marker = (value >> 32) & 0xFFFFFFFF
    if marker in (0x00005EFE, 0x02005EFE):
        return IPv4Address(value & 0xFFFFFFFF)
    return None


def parse_address(text: str) -> IPAddress:
    """An address from a resolver answer (``ValueError`` when it is not one)."""
    return ip_address(text)
