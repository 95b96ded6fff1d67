"""Hostnames in ``include_domains`` / ``exclude_domains``: normalising, refusing, matching.

A filter is normalised with :func:`spyglass.net.hostnames.domain_rule` — lower case, no trailing
dot, IDNA A-labels — so ``Example.COM.`` means ``example.com``; IP addresses, single labels
and local names (the one table in :mod:`spyglass.net.hostnames`) are refused before anyone is
asked to approve the search. Matching is on label boundaries (``example.com`` matches
``www.example.com`` but never ``badexample.com``) and uses no DNS.
"""

from __future__ import annotations

from collections.abc import Iterable

from spyglass.errors import InputError
from spyglass.net import hostnames

#: The search arguments that hold domain filters.
FILTER_ARGUMENTS = ("include_domains", "exclude_domains")


class DomainFilterError(InputError):
    """One filter entry cannot be used; ``argument`` and ``position`` (1-based) say which."""

    def __init__(self, argument: str, position: int, why: str) -> None:
        super().__init__(f"{argument} entry {position} cannot be used: {why}")
        self.argument = argument
        self.position = position
        self.why = why


def normalised(argument: str, entries: Iterable[str]) -> tuple[str, ...]:
    """The entries of one filter argument, normalised and without duplicates."""
    out: list[str] = []
    for position, entry in enumerate(entries, start=1):
        try:
            name = hostnames.domain_rule(entry)
        except hostnames.HostnameError as exc:
            raise DomainFilterError(argument, position, str(exc)) from None
        if name not in out:
            out.append(name)
    return tuple(out)


def is_local(domain: str) -> bool:
    """Whether ``domain`` names a private or special-use network (see :mod:`hostnames`)."""
    try:
        return hostnames.is_local(hostnames.normalise(domain))
    except hostnames.HostnameError:
        return False


def host_matches(host: str, domain: str) -> bool:
    """Whether ``host`` is ``domain`` or one of its subdomains (label boundaries, no DNS).

    ``host`` (from a result URL) is normalised like the filters, so ``Bücher.de`` in a result
    matches the filter ``xn--bcher-kva.de``.
    """
    try:
        name = hostnames.normalise(host)
    except hostnames.HostnameError:
        name = host.lower().rstrip(".")
    return hostnames.within(name, domain)
