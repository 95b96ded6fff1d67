"""Domain filters: normalised like the host a client connects to, local names refused."""

from __future__ import annotations

import pytest

from spyglass.search.domains import DomainFilterError, host_matches, is_local, normalised


@pytest.mark.parametrize(
    ("entry", "expected"),
    [
        ("example.com", "example.com"),
        ("docs.python.org", "docs.python.org"),
        ("xn--bcher-kva.example", "xn--bcher-kva.example"),
        ("a-b.co.uk", "a-b.co.uk"),
        ("Example.COM", "example.com"),
        ("example.com.", "example.com"),
        ("  example.com ", "example.com"),
        ("*.example.com", "example.com"),
        ("Bücher.DE", "xn--bcher-kva.de"),
    ],
)
def test_filters_are_normalised_rather_than_refused(entry: str, expected: str) -> None:
    assert normalised("include_domains", [entry]) == (expected,)


def test_filters_that_normalise_to_the_same_host_count_once() -> None:
    assert normalised("exclude_domains", ["Example.com", "example.com."]) == ("example.com",)


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
        "nas.home",
        "1.0.0.127.in-addr.arpa",
        "host.home.arpa",
        "shop.test",
        "hidden.onion",
        "-bad.com",
        "exa_mple.com",
        "a..com",
        "https://example.com/",
    ],
)
def test_ip_literals_single_labels_local_suffixes_and_odd_spellings_are_refused(
    name: str,
) -> None:
    with pytest.raises(DomainFilterError) as caught:
        normalised("include_domains", ["example.org", name])
    assert caught.value.argument == "include_domains"
    assert caught.value.position == 2


def test_is_local_looks_at_the_suffix_on_label_boundaries() -> None:
    assert is_local("nas.local") and is_local("x.test") and is_local("wiki.home.arpa")
    assert not is_local("localhost.com") and not is_local("home.example")


@pytest.mark.parametrize(
    ("host", "domain", "expected"),
    [
        ("example.com", "example.com", True),
        ("www.example.com", "example.com", True),
        ("WWW.Example.com.", "example.com", True),
        ("badexample.com", "example.com", False),
        ("example.com.evil.net", "example.com", False),
        ("com", "example.com", False),
        ("www.Bücher.de", "xn--bcher-kva.de", True),
    ],
)
def test_host_matches_on_label_boundaries(host: str, domain: str, expected: bool) -> None:
    assert host_matches(host, domain) is expected
