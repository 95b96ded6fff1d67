"""The address table decides alone, the same on every interpreter, and unwraps IPv4."""

from __future__ import annotations

import ipaddress

import pytest

from spyglass.net.addresses import V4_TABLE, V6_TABLE, is_allowed, refusal
from tests.net.ssrf_cases import ADDRESS_CASES


@pytest.mark.parametrize(("address", "allowed"), ADDRESS_CASES)
def test_address_is_judged_by_the_table(address: str, allowed: bool) -> None:
    assert is_allowed(ipaddress.ip_address(address)) is allowed


@pytest.mark.parametrize(("network", "label"), V4_TABLE, ids=lambda v: str(v))
def test_every_ipv4_range_is_refused_at_its_edges_and_in_its_mapped_forms(
    network: ipaddress.IPv4Network, label: str
) -> None:
    for address in (network.network_address, network.network_address + 1, network[-1]):
        assert refusal(address) is not None
        v4 = int(address)
        for form in (
            ipaddress.IPv6Address((0xFFFF << 32) | v4),  # mapped ::ffff:a.b.c.d
            ipaddress.IPv6Address((0xFFFF << 48) | v4),  # translated ::ffff:0:a.b.c.d
            ipaddress.IPv6Address((0x64FF9B << 96) | v4),  # NAT64 64:ff9b::a.b.c.d
            ipaddress.IPv6Address((0x2002 << 112) | (v4 << 80)),  # 6to4 2002:AABB:CCDD::
        ):
            assert refusal(form) is not None, form


@pytest.mark.parametrize(("network", "label"), V6_TABLE, ids=lambda v: str(v))
def test_every_ipv6_range_is_refused_at_its_edges(
    network: ipaddress.IPv6Network, label: str
) -> None:
    for address in (network.network_address, network.network_address + 1, network[-1]):
        assert refusal(address) is not None, address


def test_python_is_global_would_pass_addresses_the_table_refuses() -> None:
    # Why the table exists: these slip past `is_global` on current CPython.
    slips = [
        a
        for a in ("224.0.0.1", "64:ff9b::7f00:1", "::ffff:0:7f00:1", "fec0::1", "ff02::1")
        if ipaddress.ip_address(a).is_global
    ]
    assert slips
    assert all(refusal(ipaddress.ip_address(a)) is not None for a in slips)


def test_refusal_label_names_the_embedded_range() -> None:
    found = refusal(ipaddress.ip_address("::ffff:169.254.169.254"))
    assert found is not None
    assert found.label == "embedded-metadata"
    assert refusal(ipaddress.ip_address("8.8.8.8")) is None


def test_scoped_ipv6_address_is_refused_even_when_global() -> None:
    assert refusal(ipaddress.IPv6Address("2606:4700::1111%eth0")) is not None
