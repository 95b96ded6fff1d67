"""Domain arguments: the hostname rule and label-boundary matching."""

from __future__ import annotations

import re

import pytest

from spyglass.search.domains import DOMAIN_PATTERN, host_matches, is_local


@pytest.mark.parametrize(
    "name", ["example.com", "docs.python.org", "xn--bcher-kva.example", "a-b.co.uk", "x1.io"]
)
def test_public_hostnames_are_accepted(name: str) -> None:
    assert re.match(DOMAIN_PATTERN, name)


@pytest.mark.parametrize(
    "name",
    [
        "localhost",
        "intranet",
        "10.0.0.1",
        "127.1",
        "[::1]",
        "::1",
        "printer.local",
        "db.internal",
        "router.lan",
        "1.0.0.127.in-addr.arpa",
        "host.home.arpa",
        "Example.com",
        "-bad.com",
        "exa_mple.com",
        "example.com.",
        "a..com",
    ],
)
def test_ip_literals_single_labels_local_suffixes_and_odd_spellings_are_refused(
    name: str,
) -> None:
    assert not re.match(DOMAIN_PATTERN, name)


def test_is_local_looks_at_the_last_label() -> None:
    assert is_local("nas.local") and is_local("x.test") and not is_local("localhost.com")


@pytest.mark.parametrize(
    ("host", "domain", "expected"),
    [
        ("example.com", "example.com", True),
        ("www.example.com", "example.com", True),
        ("WWW.Example.com.", "example.com", True),
        ("badexample.com", "example.com", False),
        ("example.com.evil.net", "example.com", False),
        ("com", "example.com", False),
    ],
)
def test_host_matches_on_label_boundaries(host: str, domain: str, expected: bool) -> None:
    assert host_matches(host, domain) is expected
