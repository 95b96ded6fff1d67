"""The guard refuses every bypass spelling before a connection, and passes public URLs."""

from __future__ import annotations

import socket
from pathlib import Path

import hypothesis
import pytest
from hypothesis import strategies as st

from spyglass.errors import ConfigError
from spyglass.net.addresses import refusal
from spyglass.net.errors import TargetRejected
from spyglass.net.guard import (
    DomainRules,
    Guard,
    check_name,
    host_literal,
    inet_aton,
    parse_target,
)
from spyglass.paths import Paths
from spyglass.settings import load_settings
from tests.net.ssrf_cases import NAME_CASES, URL_CASES


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


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1/",
        "http://0x7f000001/",
        "http://[::1]/",
        "http://[::ffff:127.0.0.1]/",
        "http://localhost/",
        "http://api.localhost/",
        "http://169.254.169.254/",
        "http://[fe80::1%25eth0]/",
    ],
)
def test_a_refusal_that_no_setting_can_open_does_not_suggest_private_network(url: str) -> None:
    with pytest.raises(TargetRejected) as caught:
        Guard().check(url)
    assert caught.value.reason == "private_address"
    assert "private_network" not in caught.value.message
    assert "never" in caught.value.message


@pytest.mark.parametrize(
    "url", ["http://192.168.1.20/", "http://10.0.0.5/", "http://[fd00::5]/", "http://nas/"]
)
def test_a_refused_host_of_the_owners_network_suggests_private_network(url: str) -> None:
    with pytest.raises(TargetRejected) as caught:
        Guard().check(url)
    assert caught.value.reason == "private_address"
    assert "fetch.private_network" in caught.value.message


def test_an_invalid_domain_in_the_settings_fails_when_they_are_loaded(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"fetch.allow_domains.*'https://example.com/'"):
        load_settings(
            Paths(tmp_path), environ={}, overrides={"fetch.allow_domains": ["https://example.com/"]}
        )
    settings = load_settings(
        Paths(tmp_path), environ={}, overrides={"fetch.deny_domains": ["*.Example.COM."]}
    )
    assert settings.fetch.deny_domains == ["example.com"]


# -- spellings of a literal address: one parser reads them all ---------------------------------

#: Spellings of a loopback or local address that a second, quicker reading of the URL could
#: take differently from httpx's: every one is refused.
LOCAL_SPELLINGS = [
    "http://127.1/",
    "http://2130706433/",
    "http://0x7f.1/",
    "http://0x7f.0.0.1/",
    "http://0177.0.0.1/",
    "http://127.0.0.01/",
    "http://127.0.0.1./",
    "HTTP://127.0.0.1/",
    "Http://127.0.0.1/",
    "http://user@127.0.0.1/",
    "http://127.0.0.1@8.8.8.8/",
    "http://8.8.8.8@127.0.0.1/",
    "http://:@127.0.0.1/",
    "http://127.0.0.1\\@8.8.8.8/",
    "http:\\\\127.0.0.1\\",
    "http:/127.0.0.1/",
    "http:127.0.0.1/",
    "//127.0.0.1/",
    "http://127.0.0.1%2e/",
    "http://127%2e0.0.1/",
    "http://127.0.0.1/%2e%2e/",
    "http://[::1]/",
    "http://[::ffff:127.0.0.1]/",
    "http://127.0.0.1:0/",
    "http://127.0.0.1:080/",
    "http://127.0.0.1:65536/",
    "http://127.0.0.1:99999/",
    "http://127.0.0.1:/",
    "http://127.0.0.1?x",
    "http://127.0.0.1/?x",
    "http://127.0.0.1#x",
    "http://127.0.0.1/a b",
    "http://127.0.0.1/\t",
    "http://127.0.0.1\t/",
    "http://127.0.0.1/\n",
    "http://127.0.0.1\n",
    " http://127.0.0.1/",
    "http://\uff11\uff12\uff17.0.0.1/",
    "http://\u0661\u0662\u0667.0.0.1/",
    "http://127.0.0.1/\u00e9",
    "http://0.0.0.0/",
    "http://169.254.169.254/latest/meta-data/",
    "https://10.1.2.3:8443/a/b",
    "ftp://127.0.0.1/",
    "https+unix://127.0.0.1/",
]


@pytest.mark.parametrize("url", LOCAL_SPELLINGS)
def test_every_spelling_of_a_local_address_is_refused(url: str) -> None:
    with pytest.raises(TargetRejected):
        Guard().check(url)


def _mostly(draw: st.DrawFn, good: list[str], odd: list[str]) -> str:
    """A part that is usually well formed (so that whole URLs often are) and sometimes not."""
    return draw(st.sampled_from(good if draw(st.integers(0, 9)) < 8 else odd))


@st.composite
def _literal_urls(draw: st.DrawFn) -> str:
    """URLs with an IPv4 literal host and their near misses, one part at a time, with odd
    characters."""
    scheme = _mostly(draw, ["http", "https"], ["HTTP", "Https", "ftp", "", "http+unix"])
    separator = _mostly(draw, ["://"], [":/", ":", "//", ":\\\\", "://@", "://u:p@", ":///"])
    octets = ["0", "1", "7", "10", "127", "169", "192", "254", "255"]
    odd_octets = ["00", "01", "08", "256", "999", "0x7f", "0X7F", "4294967295", "\uff11",
                  "\u0661", "a", "", "1e2", "-1", "+1", "0177", "2130706433",
                  "0x7f000001"]  # fmt: skip
    parts = draw(st.integers(1, 6)) if draw(st.integers(0, 9)) == 0 else 4
    host = _mostly(draw, octets, odd_octets)
    for _ in range(parts - 1):
        host += _mostly(draw, ["."], ["..", "%2e", "\u3002", "\uff0e", ",", ":"])
        host += _mostly(draw, octets, odd_octets)
    port = _mostly(draw, ["", ":80", ":443", ":8080", ":65535", ":1"],
                   [":", ":0", ":080", ":65536", ":99999", ":8a", ":\uff18", ":-1"])  # fmt: skip
    tail = _mostly(
        draw,
        ["", "/", "/a", "/a/b.c", "/../x", "/~-_", "/.", "//"],
        ["?", "?x", "#x", "\\", "@x", " ", "\t", "\n", "/%2e", "/\u00e9", "."],
    )
    url = scheme + separator + host + port + tail
    if draw(st.integers(0, 3)) == 0:
        # One more character anywhere: a tab, an at sign, a backslash, a control character.
        where = draw(st.integers(0, len(url)))
        extra = draw(st.sampled_from(["\t", "\n", "\r", "@", "\\", "%", " ", "\x00", "[", "]",
                                      ":", "/", "#", "?", "\u200b", ".", "0"]))  # fmt: skip
        url = url[:where] + extra + url[where:]
    return url


@hypothesis.settings(max_examples=3000, deadline=None, derandomize=True)
@hypothesis.given(_literal_urls())
def test_a_literal_host_the_guard_passes_is_the_public_address_httpx_dials(url: str) -> None:
    try:
        target = Guard().check(url)
    except TargetRejected:
        return
    # The host httpx hands the connection pool, read as the operating system reads it.
    dialled = host_literal(target.url.raw_host.decode("ascii").lower())
    assert dialled == target.address
    assert dialled is None or refusal(dialled) is None
    assert target.url.userinfo == b""
