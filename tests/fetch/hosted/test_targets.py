"""What may be handed to a hosted reader: every local check that needs no network."""

from __future__ import annotations

import pytest

from spyglass.fetch.hosted.targets import check_for_reader
from spyglass.net.errors import TargetRejected
from spyglass.settings import FetchSettings


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("http://example.com/", "scheme"),
        ("ftp://example.com/", "scheme"),
        ("https://user:pw@example.com/", "credentials"),
        ("https://example.com:8443/", "port"),
        ("https://93.184.216.34/", "malformed_url"),
        ("https://[2606:2800:220:1:248:1893:25c8:1946]/", "malformed_url"),
        ("https://127.0.0.1/", "private_address"),
        ("https://0x7f000001/", "private_address"),
        ("https://localhost/", "private_address"),
        ("https://app.localhost/", "private_address"),
        ("https://intranet/", "private_address"),
        ("https://nas.local/", "private_address"),
        ("https://wiki.internal/", "private_address"),
        ("https://router.home/", "private_address"),
        ("https://printer.lan/", "private_address"),
        ("https://example.123/", "malformed_url"),
    ],
)
def test_urls_a_reader_must_never_see_are_refused_by_their_shape(url: str, reason: str) -> None:
    with pytest.raises(TargetRejected) as caught:
        check_for_reader(url, FetchSettings())
    assert caught.value.reason == reason, caught.value.message


@pytest.mark.parametrize(
    "url",
    ["https://example.com/", "https://example.com:443/a?b=c", "https://docs.example.co.uk/x"],
)
def test_public_https_names_on_the_standard_port_pass(url: str) -> None:
    check_for_reader(url, FetchSettings())


def test_the_owners_deny_list_holds_for_readers_too() -> None:
    settings = FetchSettings(deny_domains=["example.com"])
    with pytest.raises(TargetRejected) as caught:
        check_for_reader("https://www.example.com/", settings)
    assert caught.value.reason == "domain_denied"
