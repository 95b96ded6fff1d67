"""Destination checks made before any connection: URL shape, scheme, port, host, domains.

No HTTP client lives here. The URL is parsed once, with :class:`httpx.URL`: the same parser
the client that connects uses, so the two can never disagree about the host (httpx is
imported by the first check, not with this module: the capability's schema needs only
:data:`MAX_URL_CHARS`). A host that is an IP literal in any spelling the operating system
accepts (``127.1``, ``0x7f000001``, ``017700000001``) becomes that address and is judged by
:mod:`spyglass.net.addresses`.
Names are judged by spelling here (:mod:`spyglass.net.hostnames` holds the one table of local
names) and again, by the addresses they resolve to, at connect time.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from ipaddress import IPv4Address, IPv6Address
from typing import TYPE_CHECKING

from spyglass.errors import ConfigError
from spyglass.net import MAX_URL_CHARS, hostnames
from spyglass.net.addresses import IPAddress, refusal
from spyglass.net.errors import TargetRejected, private_address
from spyglass.net.private import PrivateNetwork, private_use

if TYPE_CHECKING:
    import httpx

    from spyglass.settings import FetchSettings

_NUMERIC_LABEL = re.compile(r"^(0x[0-9a-f]*|[0-9]+)$")


@functools.cache
def _forbidden_chars() -> re.Pattern[str]:
    # Compiled on first use, as the next one: importing the module costs no regex compiles.
    return re.compile(r"[\x00-\x20\x7f\\]|\s")


@functools.cache
def _bare_host() -> re.Pattern[str]:
    """``example.org`` or ``example.org/path`` typed without a scheme."""
    return re.compile(r"^[^\s/:@?#]+\.[^\s/:@?#]+(?::\d+)?(?:[/?#]|$)")


@dataclass(frozen=True)
class Target:
    """A URL that passed the checks: the parsed URL plus its host as a literal or a name."""

    url: httpx.URL
    host: str
    port: int
    address: IPAddress | None
    #: The URL names a host the owner opened with ``fetch.private_network``.
    private: bool = False

    @property
    def is_literal(self) -> bool:
        return self.address is not None


@dataclass(frozen=True)
class DomainRules:
    """The operator's allow and deny lists; a rule matches a host and its subdomains."""

    allow: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()

    @classmethod
    def from_settings(cls, allow: Iterable[str], deny: Iterable[str]) -> DomainRules:
        """Normalise the configured lists; :class:`ConfigError` names a bad entry.

        Settings already normalised them (with the same function), so this only matters for
        lists built elsewhere, such as tests and benchmarks.
        """
        return cls(
            tuple(_domain_entry(d, "fetch.allow_domains") for d in allow),
            tuple(_domain_entry(d, "fetch.deny_domains") for d in deny),
        )

    def check(self, host: str, *, opened: bool = False) -> None:
        """Refuse ``host`` if denied, or if an allow list exists and it is not on it.

        ``opened`` hosts (``fetch.private_network``) are exempt from the allow list only.
        """
        if any(hostnames.within(host, rule) for rule in self.deny):
            raise TargetRejected(
                "domain_denied",
                "this site is on the owner's deny list (fetch.deny_domains)",
            )
        if self.allow and not opened and not any(hostnames.within(host, r) for r in self.allow):
            raise TargetRejected(
                "domain_not_allowed",
                "only sites on the owner's allow list can be fetched (fetch.allow_domains)",
            )


@dataclass(frozen=True)
class Guard:
    """Checks one URL against every destination rule that needs no network (all but DNS).

    The same :meth:`check` runs in ``web.fetch``'s precheck, before anyone is asked to
    approve, and in the fetcher before every hop, so the two can never disagree.
    """

    https_only: bool = False
    allowed_ports: tuple[int, ...] = ()
    domains: DomainRules = DomainRules()
    private: PrivateNetwork = field(default_factory=PrivateNetwork)

    def check(self, raw: str) -> Target:
        """Parse and check ``raw``; :class:`TargetRejected` with a reason when refused."""
        target = parse_target(raw)
        opened = self._judge(target.url.scheme, target.host, target.port, target.address)
        return replace(target, private=True) if opened else target

    def _judge(self, scheme: str, host: str, port: int, address: IPAddress | None) -> bool:
        """Apply every rule to a parsed URL; True when the owner opened its host."""
        opened = False
        if self.https_only and scheme != "https":
            raise TargetRejected("scheme", "only https URLs are allowed here (fetch.https_only)")
        if self.allowed_ports and port not in self.allowed_ports:
            allowed = ", ".join(str(p) for p in self.allowed_ports)
            raise TargetRejected("port", f"port {port} is not allowed; allowed ports: {allowed}")
        if address is not None:
            if refusal(address) is not None:
                if not self.private.opens(address):
                    raise private_address(openable=private_use(address))
                opened = True
        elif self.private.names_host(host):
            opened = True
        else:
            check_name(host)
        # The owner opened this host by name or range: the allow list (which names public
        # sites) does not apply to it; the deny list still does.
        self.domains.check(host, opened=opened)
        return opened


def parse_target(raw: str) -> Target:
    """Parse ``raw`` with httpx's parser and refuse anything ambiguous about its host."""
    import httpx

    if not isinstance(raw, str) or not raw:
        raise _malformed("the URL is empty")
    if len(raw) > MAX_URL_CHARS:
        raise _malformed(f"the URL is longer than {MAX_URL_CHARS} characters")
    if _forbidden_chars().search(raw):
        raise _malformed(
            "the URL contains a backslash, a space or a control character; "
            "percent-encode them or check the link"
        )
    scheme = raw.split(":", 1)[0].lower() if ":" in raw else ""
    if "://" not in raw and (not scheme or _bare_host().match(raw)):
        example = f" (for example https://{raw})" if len(raw) <= 100 else ""
        raise TargetRejected(
            "scheme", f"the URL has no scheme; write it in full, starting with https://{example}"
        )
    if scheme not in ("http", "https"):
        shown = f"{scheme}:" if scheme and len(scheme) <= 20 else "this scheme"
        raise TargetRejected("scheme", f"{shown} URLs cannot be fetched; use http or https")
    try:
        url = httpx.URL(raw)
    except (httpx.InvalidURL, ValueError, UnicodeError):
        raise _malformed("the URL cannot be parsed") from None
    if url.scheme not in ("http", "https") or not raw[len(scheme) :].startswith("://"):
        raise _malformed("the URL must look like http://host/path or https://host/path")
    if url.userinfo or "@" in raw.split("//", 1)[1].split("/", 1)[0]:
        raise TargetRejected("credentials", "URLs with a user name or password cannot be fetched")
    host = url.raw_host.decode("ascii", "replace").lower()
    if not host:
        raise _malformed("the URL has no host")
    port = url.port or (443 if url.scheme == "https" else 80)
    if not 0 < port < 65536:
        raise TargetRejected("port", f"{port} is not a valid port")
    address = host_literal(host)
    host = _normalise_name(host) if address is None else str(address)
    return Target(url=url, host=host, port=port, address=address)


def host_literal(host: str) -> IPAddress | None:
    """The address a literal host names, parsed the way the operating system would.

    IPv6 literals come bracket-free from httpx. IPv4 follows ``inet_aton``: one to four
    dot-separated parts, each decimal, octal (leading ``0``) or hex (``0x``), the last part
    filling the remaining bytes. A host whose last label is numeric but is not a valid
    address is refused rather than passed to DNS, as browsers do.
    """
    if ":" in host:
        if "%" in host:
            # A zone id (fe80::1%25eth0) names an interface of this machine.
            raise private_address(openable=False)
        try:
            return IPv6Address(host)
        except ValueError:
            raise _malformed("the IPv6 address in the URL is not valid") from None
    name = host[:-1] if host.endswith(".") else host
    labels = name.split(".")
    if not labels or not _NUMERIC_LABEL.match(labels[-1]):
        return None
    value = inet_aton(name)
    if value is None:
        raise _malformed("the host looks like an IP address but is not a valid one")
    return value


def inet_aton(text: str) -> IPv4Address | None:
    """``inet_aton`` semantics without the C library's trailing-garbage tolerance."""
    parts = text.split(".")
    if not 1 <= len(parts) <= 4:
        return None
    numbers: list[int] = []
    for part in parts:
        number = _aton_part(part)
        if number is None:
            return None
        numbers.append(number)
    *head, last = numbers
    if any(n > 255 for n in head) or last >= 256 ** (4 - len(head)):
        return None
    value = 0
    for n in head:
        value = (value << 8) | n
    value = (value << (8 * (4 - len(head)))) | last
    return IPv4Address(value)


def _aton_part(part: str) -> int | None:
    lowered = part.lower()
    try:
        if lowered.startswith("0x"):
            return int(lowered[2:], 16) if len(lowered) > 2 else None
        if len(lowered) > 1 and lowered.startswith("0"):
            return int(lowered[1:], 8)
        return int(lowered, 10) if lowered.isdigit() else None
    except ValueError:
        return None


def check_name(host: str) -> None:
    """Refuse names that always mean this machine, its network or a metadata service."""
    if hostnames.is_local(host):
        # Names of this machine or a metadata service can never be opened; other local
        # names (``nas``, ``wiki.home.arpa``) can, by name, with fetch.private_network.
        never = host in hostnames.LOCAL_NAMES or hostnames.within(host, "localhost")
        raise private_address(openable=not never)


def _normalise_name(host: str) -> str:
    try:
        return hostnames.normalise(host)
    except hostnames.HostnameError:
        raise _malformed("the host name contains characters a host name cannot have") from None


def _domain_entry(entry: str, key: str) -> str:
    try:
        return hostnames.domain_rule(entry)
    except hostnames.HostnameError as exc:
        raise ConfigError(f"{key}: {entry!r} cannot be used: {exc}") from None


def guard_from_settings(
    *,
    https_only: bool,
    allowed_ports: Sequence[int],
    allow_domains: Sequence[str],
    deny_domains: Sequence[str],
    private_network: Sequence[str] = (),
) -> Guard:
    """The guard for validated ``[fetch]`` settings.

    The settings model already normalised the lists with :mod:`spyglass.net.hostnames`, so they
    are used as they are rather than validated a second time.
    """
    return Guard(
        https_only=https_only,
        allowed_ports=tuple(allowed_ports),
        domains=DomainRules(tuple(allow_domains), tuple(deny_domains)),
        private=PrivateNetwork.from_normalised(private_network),
    )


def guard_for(settings: FetchSettings) -> Guard:
    """The guard for validated ``[fetch]`` settings: what the fetcher and the precheck run."""
    return guard_from_settings(
        https_only=settings.https_only,
        allowed_ports=settings.allowed_ports,
        allow_domains=settings.allow_domains,
        deny_domains=settings.deny_domains,
        private_network=settings.private_network,
    )


def _malformed(why: str) -> TargetRejected:
    return TargetRejected("malformed_url", f"{why}")


__all__ = [
    "MAX_URL_CHARS",
    "DomainRules",
    "Guard",
    "Target",
    "check_name",
    "guard_for",
    "guard_from_settings",
    "host_literal",
    "inet_aton",
    "parse_target",
]
