"""The pinned transport dials only checked addresses, once resolved, never through a proxy.

Loopback peers stand in for public sites through the injectable resolver and dialler; a
"canary" peer sits behind a private address and must never see a connection.
"""

from __future__ import annotations

import errno
import inspect
import ipaddress
import ssl
import tomllib
from collections.abc import Iterator
from importlib.metadata import version
from pathlib import Path

import httpcore
import httpx
import pytest
import trustme
from packaging.requirements import Requirement

from spyglass.errors import CapabilityError
from spyglass.fetch.fetcher import FetchConfig, Fetcher
from spyglass.net.dialler import PeerRefused, SystemDialler, check_peer
from spyglass.net.errors import UNRESOLVED_NAME, TargetRejected
from spyglass.net.transport import HTTPCORE_TO_HTTPX, GuardedBackend, PinnedTransport
from tests.support.fetch_peers import MappedDialler, Peer, StaticResolver, page

PUBLIC = "93.184.215.10"
PUBLIC_2 = "93.184.215.11"
PRIVATE = "10.0.0.5"
HTML = (
    "<html><head><title>Hello</title></head><body><p>" + "Words here. " * 40 + "</p></body></html>"
)


@pytest.fixture
def site() -> Iterator[Peer]:
    with Peer({"/": page(HTML)}) as peer:
        yield peer


@pytest.fixture
def canary() -> Iterator[Peer]:
    with Peer({"*": page("canary reached")}) as peer:
        yield peer


def network(site: Peer, canary: Peer) -> MappedDialler:
    # The canary is reachable through the private address, so any guard failure would
    # show up as a connection on it.
    return MappedDialler({PUBLIC: site.address, PUBLIC_2: site.address, PRIVATE: canary.address})


async def test_a_public_name_is_dialled_at_its_checked_address_with_its_own_host_header(
    site: Peer, canary: Peer
) -> None:
    resolver = StaticResolver({"example.com": [PUBLIC]})
    dialler = network(site, canary)
    async with Fetcher(FetchConfig(), resolver, dialler) as fetcher:
        fetched = await fetcher.fetch("http://example.com/")
    assert fetched.status == 200
    assert fetched.body == HTML.encode()
    assert dialler.dialled == [ipaddress.ip_address(PUBLIC)]
    assert resolver.lookups["example.com"] == 1
    assert site.headers[0]["Host"] == "example.com"
    assert canary.connections == 0


async def test_rebinding_to_loopback_after_a_public_answer_never_dials_the_private_address(
    site: Peer, canary: Peer
) -> None:
    resolver = StaticResolver({"rebind.example": [[PUBLIC], [PRIVATE], ["127.0.0.1"]]})
    dialler = network(site, canary)
    async with Fetcher(FetchConfig(), resolver, dialler) as fetcher:
        first = await fetcher.fetch("http://rebind.example/")
    assert first.status == 200
    for _ in range(2):
        async with Fetcher(FetchConfig(), resolver, dialler) as fetcher:
            with pytest.raises(TargetRejected) as caught:
                await fetcher.fetch("http://rebind.example/")
        assert caught.value.reason == "private_address"
    assert dialler.dialled == [ipaddress.ip_address(PUBLIC)]
    assert canary.connections == 0


async def test_a_name_with_one_private_answer_among_public_ones_is_refused(
    site: Peer, canary: Peer
) -> None:
    resolver = StaticResolver({"mixed.example": [PUBLIC, PRIVATE, PUBLIC_2]})
    dialler = network(site, canary)
    async with Fetcher(FetchConfig(), resolver, dialler) as fetcher:
        with pytest.raises(TargetRejected) as caught:
            await fetcher.fetch("http://mixed.example/")
    assert caught.value.reason == "private_address"
    assert dialler.dialled == []
    assert site.connections == 0
    assert canary.connections == 0


@pytest.mark.parametrize(
    "answer", ["::ffff:10.0.0.5", "64:ff9b::a00:5", "2002:a00:5::1", "169.254.169.254", "::1"]
)
async def test_private_answers_in_any_spelling_are_refused(
    answer: str, site: Peer, canary: Peer
) -> None:
    resolver = StaticResolver({"sneaky.example": [answer]})
    dialler = network(site, canary)
    async with Fetcher(FetchConfig(), resolver, dialler) as fetcher:
        with pytest.raises(TargetRejected):
            await fetcher.fetch("http://sneaky.example/")
    assert dialler.dialled == []
    assert canary.connections == 0


async def test_the_error_message_never_echoes_the_resolved_address(
    site: Peer, canary: Peer
) -> None:
    resolver = StaticResolver({"sneaky.example": ["10.0.0.5"]})
    async with Fetcher(FetchConfig(), resolver, network(site, canary)) as fetcher:
        with pytest.raises(TargetRejected) as caught:
            await fetcher.fetch("http://sneaky.example/")
    assert "10.0.0.5" not in caught.value.message


@pytest.mark.parametrize(
    ("answers", "openable"),
    [
        (["127.0.0.1"], False),
        (["::1"], False),
        (["10.0.0.5", "169.254.169.254"], False),
        (["10.0.0.5"], True),
        (["192.168.1.20", PUBLIC], True),
    ],
)
async def test_a_name_resolving_inside_suggests_private_network_only_when_it_could_open_it(
    answers: list[str], openable: bool, site: Peer, canary: Peer
) -> None:
    resolver = StaticResolver({"inside.example": answers})
    async with Fetcher(FetchConfig(), resolver, network(site, canary)) as fetcher:
        with pytest.raises(TargetRejected) as caught:
            await fetcher.fetch("http://inside.example/")
    assert ("fetch.private_network" in caught.value.message) is openable


async def test_a_name_that_does_not_resolve_says_it_could_not_be_looked_up_or_we_are_offline(
    site: Peer, canary: Peer
) -> None:
    async with Fetcher(FetchConfig(), StaticResolver({}), network(site, canary)) as fetcher:
        with pytest.raises(CapabilityError) as caught:
            await fetcher.fetch("http://nowhere.example/")
    assert caught.value.code == "FETCH_NETWORK_ERROR"
    assert "could not be looked up" in caught.value.message
    assert "no network" in caught.value.message
    # No connection was opened: the reason lets the receipt say nothing left the device.
    assert caught.value.reason == UNRESOLVED_NAME


async def test_an_address_with_no_route_says_the_network_is_unreachable(canary: Peer) -> None:
    class Unreachable(MappedDialler):
        async def connect(
            self,
            address: ipaddress.IPv4Address | ipaddress.IPv6Address,
            port: int,
            timeout: float | None,
        ) -> httpcore.AsyncNetworkStream:
            try:
                raise OSError(errno.ENETUNREACH, "Network is unreachable")
            except OSError as exc:
                raise httpcore.ConnectError(str(exc)) from exc

    resolver = StaticResolver({"example.com": [PUBLIC]})
    async with Fetcher(FetchConfig(), resolver, Unreachable()) as fetcher:
        with pytest.raises(CapabilityError) as caught:
            await fetcher.fetch("http://example.com/")
    assert caught.value.code == "FETCH_NETWORK_ERROR"
    assert "network is unreachable" in caught.value.message


async def test_an_unreachable_first_address_falls_back_to_the_next_checked_one(
    site: Peer, canary: Peer
) -> None:
    resolver = StaticResolver({"two.example": ["93.184.215.99", PUBLIC]})
    dialler = network(site, canary)
    async with Fetcher(FetchConfig(), resolver, dialler) as fetcher:
        fetched = await fetcher.fetch("http://two.example/")
    assert fetched.status == 200
    assert dialler.dialled == [ipaddress.ip_address("93.184.215.99"), ipaddress.ip_address(PUBLIC)]


async def test_proxy_variables_cannot_reroute_a_fetch(
    site: Peer, canary: Peer, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.setenv(name, canary.url)
    resolver = StaticResolver({"example.com": [PUBLIC]})
    async with Fetcher(FetchConfig(), resolver, network(site, canary)) as fetcher:
        fetched = await fetcher.fetch("http://example.com/")
    assert fetched.status == 200
    assert canary.connections == 0


async def test_the_system_dialler_refuses_a_socket_whose_peer_is_loopback(site: Peer) -> None:
    host, port = site.address
    with pytest.raises(PeerRefused):
        await SystemDialler().connect(ipaddress.ip_address(host), port, timeout=5)


async def test_a_socket_connected_somewhere_else_than_the_checked_address_is_refused(
    site: Peer,
) -> None:
    host, port = site.address
    stream = await httpcore.AnyIOBackend().connect_tcp(host, port, timeout=5)
    try:
        with pytest.raises(PeerRefused):
            check_peer(stream, ipaddress.ip_address(PUBLIC))
    finally:
        await stream.aclose()


@pytest.fixture(scope="module")
def authority() -> trustme.CA:
    return trustme.CA()


async def test_tls_sends_sni_and_verifies_the_certificate_for_the_name(
    authority: trustme.CA, canary: Peer
) -> None:
    server = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    authority.issue_cert("secure.example").configure_cert(server)
    client = ssl.create_default_context()
    authority.configure_trust(client)
    with Peer({"/": page(HTML)}, tls=server) as secure:
        resolver = StaticResolver({"secure.example": [PUBLIC], "other.example": [PUBLIC]})
        dialler = MappedDialler({PUBLIC: secure.address, PRIVATE: canary.address})
        async with Fetcher(FetchConfig(), resolver, dialler, ssl_context=client) as fetcher:
            fetched = await fetcher.fetch("https://secure.example/")
            assert fetched.status == 200
            assert secure.server_names[-1] == "secure.example"
            # The same address under a name the certificate does not cover is refused.
            with pytest.raises(CapabilityError) as caught:
                await fetcher.fetch("https://other.example/")
        assert caught.value.code == "FETCH_NETWORK_ERROR"
        assert "certificate" in str(caught.value)


# -- what the transport relies on from httpx and httpcore --------------------------------------


def test_every_exception_httpcore_exports_has_an_httpx_counterpart() -> None:
    # A new httpcore exception that the table does not cover would escape the fetcher as an
    # unexpected error; this fails first, naming it.
    exported = [
        getattr(httpcore, name)
        for name in httpcore.__all__
        if isinstance(getattr(httpcore, name), type)
        and issubclass(getattr(httpcore, name), Exception)
    ]
    assert exported
    # ConnectionNotAvailable never leaves the pool: it retries on another connection.
    internal = {"ConnectionNotAvailable"}
    uncovered = [
        cls.__name__
        for cls in exported
        if cls.__name__ not in internal
        and not any(issubclass(cls, source) for source, _ in HTTPCORE_TO_HTTPX)
    ]
    assert uncovered == []


def test_the_connection_pool_still_takes_a_network_backend_and_our_other_arguments() -> None:
    parameters = inspect.signature(httpcore.AsyncConnectionPool).parameters
    for name in (
        "ssl_context",
        "max_connections",
        "max_keepalive_connections",
        "keepalive_expiry",
        "http1",
        "http2",
        "network_backend",
    ):
        assert name in parameters, f"httpcore.AsyncConnectionPool lost {name!r}"


def test_the_pinned_transport_uses_only_the_public_transport_interface() -> None:
    backend = GuardedBackend(StaticResolver({}), MappedDialler())
    transport = PinnedTransport(backend)
    assert isinstance(transport, httpx.AsyncBaseTransport)
    assert not isinstance(transport, httpx.AsyncHTTPTransport)
    assert isinstance(transport.pool, httpcore.AsyncConnectionPool)


def test_the_installed_httpx_and_httpcore_are_inside_the_declared_bounds() -> None:
    project = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())
    declared = {Requirement(d).name: Requirement(d) for d in project["project"]["dependencies"]}
    for name in ("httpx", "httpcore"):
        requirement = declared[name]
        assert list(requirement.specifier.filter(["999"])) == [], f"{name} has no upper bound"
        assert requirement.specifier.contains(version(name)), f"{name} {version(name)}"


async def test_a_response_body_error_arrives_in_httpx_terms(canary: Peer) -> None:
    class Cut(MappedDialler):
        async def connect(
            self,
            address: ipaddress.IPv4Address | ipaddress.IPv6Address,
            port: int,
            timeout: float | None,
        ) -> httpcore.AsyncNetworkStream:
            raise httpcore.ReadError("the peer went away")

    backend = GuardedBackend(StaticResolver({"example.com": [PUBLIC]}), Cut())
    async with httpx.AsyncClient(transport=PinnedTransport(backend)) as client:
        with pytest.raises(httpx.ReadError):
            await client.get("http://example.com/")
