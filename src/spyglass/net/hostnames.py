"""Host names: the one table of names that never mean the public web, and normalisation.

Every place that judges a host name by its spelling uses this module: the fetch guard (URL
hosts), the search filters (``include_domains`` / ``exclude_domains``) and the settings
(``fetch.allow_domains`` / ``fetch.deny_domains``). A name is normalised the way the HTTP
client normalises the host it connects to — lower case, no trailing dot, IDNA A-labels — so a
rule written ``Bücher.DE.`` matches the URL ``https://bücher.de/`` and nothing else.

Names that *resolve* somewhere private are caught by their addresses at connect time; the
names below are refused by spelling so a resolver that says otherwise cannot help.
"""

from __future__ import annotations

import re
from ipaddress import IPv4Network, IPv6Network, ip_network

from spyglass.errors import InputError

#: Names that always mean this machine, its network or a cloud metadata service.
LOCAL_NAMES = frozenset(
    {
        "localhost",
        "ip6-localhost",
        "ip6-loopback",
        "metadata",
        "metadata.google.internal",
        "metadata.goog",
        "metadata.azure.com",
        "metadata.amazonaws.com",
        "instance-data",
        "instance-data.ec2.internal",
        "kubernetes.default",
        "kubernetes.default.svc",
        "host.docker.internal",
        "gateway.docker.internal",
    }
)

#: Suffixes of private or special-use names (RFC 6761, RFC 6762, RFC 8375, RFC 7686 and
#: common home/office conventions). A suffix matches itself and every name under it, on
#: label boundaries: ``nas.home`` and ``wiki.home.arpa`` are local, ``home.example`` is not.
LOCAL_SUFFIXES = (
    "localhost",
    "local",
    "localdomain",
    "internal",
    "intranet",
    "private",
    "corp",
    "home",
    "lan",
    "arpa",
    "test",
    "invalid",
    "onion",
)

MAX_NAME_CHARS = 253

_LABEL = re.compile(r"^(?!-)[a-z0-9-]{1,63}(?<!-)$")
_NUMERIC = re.compile(r"^(0x[0-9a-f]*|[0-9]+)$")


class HostnameError(InputError):
    """``text`` is not a host name; the message says why, without repeating it."""


def normalise(text: str) -> str:
    """``text`` as the client would send it: lower case, no trailing dot, IDNA A-labels.

    :class:`HostnameError` when it is not a syntactically valid host name.
    """
    name = text.strip().lower()
    if name.endswith("."):
        name = name[:-1]
    if not name:
        raise HostnameError("the host name is empty")
    if not name.isascii():
        # Imported here: only international names need it, and the CLI starts faster.
        import idna

        try:
            name = idna.encode(name).decode("ascii")
        except (idna.IDNAError, UnicodeError):
            raise HostnameError(
                "the host name has characters an international domain name cannot have"
            ) from None
    if len(name) > MAX_NAME_CHARS:
        raise HostnameError(f"the host name is longer than {MAX_NAME_CHARS} characters")
    if not all(_LABEL.match(label) for label in name.split(".")):
        raise HostnameError(
            "the host name has characters a host name cannot have "
            "(letters, digits, hyphens and dots only)"
        )
    return name


def is_local(name: str) -> bool:
    """Whether a normalised ``name`` means this machine, its network or a metadata service.

    A single label counts as local: the resolver completes it from its search list, so it
    names a machine on the owner's network, never a public site.
    """
    if name in LOCAL_NAMES or "." not in name:
        return True
    return any(name == suffix or name.endswith("." + suffix) for suffix in LOCAL_SUFFIXES)


def looks_numeric(name: str) -> bool:
    """Whether the last label is numeric, i.e. the name is an IP address in some spelling."""
    return bool(_NUMERIC.match(name.rsplit(".", 1)[-1]))


def within(host: str, domain: str) -> bool:
    """Whether ``host`` is ``domain`` or one of its subdomains (label boundaries, no DNS)."""
    return host == domain or host.endswith("." + domain)


def domain_rule(text: str) -> str:
    """One entry of a domain list (a filter or an allow/deny rule) in normalised form.

    ``*.example.com`` means the same as ``example.com`` (subdomains always match). Refuses
    IP addresses, single labels and local names with :class:`HostnameError`: such a rule
    could never match a public site, so it is almost certainly a mistake.
    """
    body = text.strip()
    if body.startswith("*."):
        body = body[2:]
    if any(char in body for char in "/:@?#[]"):
        raise HostnameError('give only the host name, like "example.com", not a URL')
    name = normalise(body)
    if looks_numeric(name):
        raise HostnameError("IP addresses are not domains; give a host name like example.com")
    if is_local(name):
        raise HostnameError(
            "it names a private or special-use network (a single label or a suffix such as "
            ".local, .home.arpa, .test or .onion), never a public site"
        )
    return name


#: The only address blocks an owner may open with ``fetch.private_network``: private by
#: design, with no special meaning to this machine or to a cloud. (Metadata addresses inside
#: them stay refused: the fetch guard checks those by address.)
PRIVATE_USE: tuple[IPv4Network | IPv6Network, ...] = (
    IPv4Network("10.0.0.0/8"),
    IPv4Network("172.16.0.0/12"),
    IPv4Network("192.168.0.0/16"),
    IPv4Network("100.64.0.0/10"),
    IPv6Network("fc00::/7"),
)


def private_network_entry(text: str) -> str:
    """One ``fetch.private_network`` entry, normalised: a host name, or an address range.

    Names may be local (that is the point: ``wiki.home.arpa``, ``nas``) but never this
    machine or a metadata service; addresses and ranges must lie inside :data:`PRIVATE_USE`.
    :class:`HostnameError` says what is wrong.
    """
    body = text.strip()
    network = as_network(body)
    if network is not None:
        if not any(
            network.version == block.version and network.subnet_of(block)  # type: ignore[arg-type]
            for block in PRIVATE_USE
        ):
            raise HostnameError(
                "it is not inside a private-use range; only addresses in 10.0.0.0/8, "
                "172.16.0.0/12, 192.168.0.0/16, 100.64.0.0/10 or fc00::/7 can be opened "
                "(never loopback, link-local or cloud metadata)"
            )
        return str(network)
    if any(char in body for char in "/:@?#[]"):
        raise HostnameError(
            'give a host name or an address, like "nas.home.arpa", "192.168.1.20" or '
            '"192.168.1.0/24"'
        )
    name = normalise(body)
    if looks_numeric(name):
        raise HostnameError("it looks like an IP address but is not a valid one")
    if name in LOCAL_NAMES or within(name, "localhost"):
        raise HostnameError("it names this machine or a cloud metadata service; never opened")
    return name


def as_network(text: str) -> IPv4Network | IPv6Network | None:
    """``text`` as an address range (a single address is a /32 or /128), else ``None``."""
    try:
        return ip_network(text.strip("[]"), strict=False)
    except ValueError:
        return None


__all__ = [
    "LOCAL_NAMES",
    "LOCAL_SUFFIXES",
    "PRIVATE_USE",
    "HostnameError",
    "as_network",
    "domain_rule",
    "is_local",
    "looks_numeric",
    "normalise",
    "private_network_entry",
    "within",
]
