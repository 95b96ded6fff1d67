"""The guard refuses every bypass spelling before a connection, and passes public URLs."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from spyglass.errors import ConfigError
from spyglass.fetch.errors import TargetRejected
from spyglass.fetch.guard import DomainRules, Guard, check_name, inet_aton, parse_target
from spyglass.paths import Paths
from spyglass.settings import load_settings
from tests.fetch.ssrf_cases import NAME_CASES, URL_CASES


@pytest.mark.parametrize(("url", "reason"), URL_CASES)
def test_url_case_gets_the_expected_decision(url: str, reason: str | None) -> None:
    guard = Guard()
    if reason is None:
        target = guard.check(url)
        assert target.url.scheme in ("http", "https")
    else:
        with pytest.raises(TargetRejected) as caught:
            guard.check(url)
        assert caught.value.reason == reason
        assert caught.value.code == "FETCH_TARGET_REJECTED"
        assert caught.value.status == "rejected"


@pytest.mark.parametrize("name", NAME_CASES)
def test_local_and_metadata_names_are_refused_without_a_lookup(name: str) -> None:
    with pytest.raises(TargetRejected) as caught:
        check_name(name)
    assert caught.value.reason == "private_address"


@pytest.mark.parametrize(
    "text",
    [
        "127.0.0.1",
        "127.1",
        "127.0.1",
        "2130706433",
        "017700000001",
        "0177.0.0.1",
        "0x7f.1",
        "0x7f000001",
        "0",
        "0177.0.0.01",
        "0251.254.169.254",
        "1.2.3.04",
        "0x7f.0x0.0x0.0x1",
        "255.255.255.255",
        "0xffffffff",
        "4294967295",
        "1.0xffffff",
    ],
)
def test_ipv4_literals_parse_exactly_as_the_c_library_does(text: str) -> None:
    assert inet_aton(text) is not None
    assert inet_aton(text).packed == socket.inet_aton(text)  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "text", ["256.0.0.1", "4294967296", "1.2.3.4.5", "0x", "1..2", "08", "1.2.3.256", "", "a"]
)
def test_invalid_ipv4_literals_are_not_addresses(text: str) -> None:
    expected_valid = True
    try:
        socket.inet_aton(text)
    except OSError:
        expected_valid = False
    # Where glibc is lenient (``0x`` is 0) we are at least as strict.
    assert inet_aton(text) is None or expected_valid


def test_a_numeric_looking_host_that_is_not_an_address_is_refused_not_resolved() -> None:
    with pytest.raises(TargetRejected) as caught:
        parse_target("http://1.2.3.999/")
    assert caught.value.reason == "malformed_url"


def test_the_parsed_host_is_the_one_httpx_connects_to() -> None:
    target = parse_target("http://Example.COM:8080/a")
    assert target.host == "example.com"
    assert target.port == 8080
    assert target.url.host == "example.com"
    assert not target.is_literal


def test_https_only_refuses_plain_http() -> None:
    with pytest.raises(TargetRejected) as caught:
        Guard(https_only=True).check("http://example.com/")
    assert caught.value.reason == "scheme"
    assert Guard(https_only=True).check("https://example.com/").port == 443


def test_allowed_ports_refuse_other_ports_with_the_list_in_the_message() -> None:
    guard = Guard(allowed_ports=(443,))
    with pytest.raises(TargetRejected) as caught:
        guard.check("https://example.com:8443/")
    assert caught.value.reason == "port"
    assert "443" in caught.value.message


def test_deny_list_wins_over_allow_list_and_covers_subdomains() -> None:
    rules = DomainRules.from_settings(allow=["example.com"], deny=["bad.example.com"])
    guard = Guard(domains=rules)
    assert guard.check("https://www.example.com/").host == "www.example.com"
    with pytest.raises(TargetRejected) as denied:
        guard.check("https://x.bad.example.com/")
    assert denied.value.reason == "domain_denied"
    with pytest.raises(TargetRejected) as outside:
        guard.check("https://example.org/")
    assert outside.value.reason == "domain_not_allowed"
    with pytest.raises(TargetRejected):
        guard.check("https://notexample.com/")


def test_invalid_domain_list_entry_fails_with_the_key_and_the_entry() -> None:
    with pytest.raises(ConfigError, match=r"fetch.deny_domains: 'http://x/' cannot be used"):
        DomainRules.from_settings(allow=[], deny=["http://x/"])


def test_messages_never_echo_the_address() -> None:
    with pytest.raises(TargetRejected) as caught:
        Guard().check("http://2852039166/")
    assert "169.254" not in caught.value.message
    assert "2852039166" not in caught.value.message


def test_an_invalid_domain_in_the_settings_fails_when_they_are_loaded(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"fetch.allow_domains .*'https://example.com/'"):
        load_settings(
            Paths(tmp_path), environ={}, overrides={"fetch.allow_domains": ["https://example.com/"]}
        )
    settings = load_settings(
        Paths(tmp_path), environ={}, overrides={"fetch.deny_domains": ["*.Example.COM."]}
    )
    assert settings.fetch.deny_domains == ["example.com"]
