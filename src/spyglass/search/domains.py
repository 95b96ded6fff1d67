"""Hostnames in ``include_domains`` / ``exclude_domains``: what is accepted, and matching.

Matching is on label boundaries (``example.com`` matches ``www.example.com`` but never
``badexample.com``) and uses no DNS.
"""

from __future__ import annotations

#: A lowercase hostname of at least two labels whose last label starts with a letter, so
#: IPv4 literals and single labels never match. Used in the argument schema.
HOSTNAME_PATTERN = (
    r"^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+"
    r"[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$"
)

#: Suffixes that name private or special-use networks, never the public web.
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

#: The same rule as a regular expression, so the schema refuses such names before approval.
LOCAL_SUFFIX_PATTERN = r"^(?!(?:.*\.)?(?:" + "|".join(LOCAL_SUFFIXES) + r")$)"


def is_local(domain: str) -> bool:
    """Whether ``domain`` ends in a private or special-use suffix."""
    last = domain.rstrip(".").rsplit(".", 1)[-1]
    return last in LOCAL_SUFFIXES


def host_matches(host: str, domain: str) -> bool:
    """Whether ``host`` is ``domain`` or one of its subdomains (label boundaries, no DNS)."""
    host = host.lower().rstrip(".")
    return host == domain or host.endswith("." + domain)


#: The full rule for one domain argument.
DOMAIN_PATTERN = LOCAL_SUFFIX_PATTERN + HOSTNAME_PATTERN[1:]
