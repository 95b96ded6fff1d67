"""``fetch.private_network``: the owner opens chosen hosts of their own network, and no more."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpcore
import pytest

from spyglass.core.context import Turn
from spyglass.core.policy import WEB_ACCESS
from spyglass.errors import CapabilityError, ConfigError
from spyglass.fetch.fetcher import FetchConfig, Fetcher
from spyglass.net.dialler import PeerRefused, check_peer
from spyglass.net.guard import DomainRules, Guard
from spyglass.net.private import NOTICE_KIND, PrivateNetwork, private_use
from spyglass.paths import Paths
from spyglass.runtime import Runtime, build_runtime
from spyglass.settings import load_settings
from tests.support.fetch_peers import MappedDialler, Peer, StaticResolver, page

WIKI = "192.168.1.20"
HTML = "<html><head><title>Home wiki</title></head><body><p>" + "Notes. " * 40 + "</p></body>"


@pytest.fixture
def wiki() -> Iterator[Peer]:
    with Peer({"/": page(HTML)}) as peer:
        yield peer


def config(*entries: str) -> FetchConfig:
    return FetchConfig(guard=Guard(private=PrivateNetwork.parse(entries)))


async def fetch(cfg: FetchConfig, url: str, answers: dict[str, list[str]], wiki: Peer) -> Any:
    dialler = MappedDialler({WIKI: wiki.address, "127.0.0.1": wiki.address})
    async with Fetcher(cfg, StaticResolver(answers), dialler) as fetcher:
        return await fetcher.fetch(url)


async def test_a_private_address_is_refused_when_nothing_is_opened(wiki: Peer) -> None:
    with pytest.raises(CapabilityError) as caught:
        await fetch(FetchConfig(), f"http://{WIKI}/", {}, wiki)
    assert caught.value.reason == "private_address"
    assert "fetch.private_network" in caught.value.message
    assert wiki.connections == 0


async def test_an_address_inside_an_opened_range_is_read(wiki: Peer) -> None:
    fetched = await fetch(config("192.168.1.0/24"), f"http://{WIKI}/", {}, wiki)
    assert fetched.body == HTML.encode()


async def test_an_opened_name_is_read_at_its_private_address(wiki: Peer) -> None:
    fetched = await fetch(
        config("Wiki.Home.Arpa."), "http://wiki.home.arpa/", {"wiki.home.arpa": [WIKI]}, wiki
    )
    assert fetched.body == HTML.encode()


@pytest.mark.parametrize("answer", ["127.0.0.1", "169.254.169.254", "0.0.0.0", "fe80::1"])
async def test_an_opened_name_that_resolves_to_loopback_link_local_or_metadata_is_refused(
    wiki: Peer, answer: str
) -> None:
    with pytest.raises(CapabilityError) as caught:
        await fetch(
            config("wiki.home.arpa"), "http://wiki.home.arpa/", {"wiki.home.arpa": [answer]}, wiki
        )
    assert caught.value.reason == "private_address"
    assert wiki.connections == 0


async def test_a_public_name_pointing_into_an_opened_range_is_still_refused(wiki: Peer) -> None:
    # The approval card is decided before DNS: only hosts the URL itself names are opened.
    with pytest.raises(CapabilityError) as caught:
        await fetch(config("192.168.1.0/24"), "http://example.com/", {"example.com": [WIKI]}, wiki)
    assert caught.value.reason == "private_address"
    assert wiki.connections == 0


async def test_an_opened_name_does_not_open_its_address_or_its_subdomains(wiki: Peer) -> None:
    cfg = config("wiki.home.arpa")
    for url in (f"http://{WIKI}/", "http://other.wiki.home.arpa/"):
        with pytest.raises(CapabilityError):
            await fetch(cfg, url, {"other.wiki.home.arpa": [WIKI]}, wiki)
    assert wiki.connections == 0


@pytest.mark.parametrize(
    "entry",
    [
        "127.0.0.1",
        "127.0.0.0/8",
        "169.254.169.254",
        "169.254.0.0/16",
        "0.0.0.0/0",
        "::1",
        "fe80::/10",
        "10.0.0.0/7",
        "localhost",
        "metadata.google.internal",
        "http://nas/",
    ],
)
def test_loopback_link_local_metadata_and_oversized_ranges_cannot_be_opened(
    tmp_path: Path, entry: str
) -> None:
    with pytest.raises(ConfigError, match=r"fetch\.private_network"):
        load_settings(Paths(tmp_path), environ={"SPYGLASS_FETCH__PRIVATE_NETWORK": f'["{entry}"]'})


@pytest.mark.parametrize("address", ["100.100.100.200", "fd00:ec2::254"])
def test_metadata_addresses_inside_private_use_space_are_never_opened(address: str) -> None:
    assert not private_use(ipaddress.ip_address(address))
    network = PrivateNetwork.parse(["100.64.0.0/10", "fd00::/8"])
    assert not network.opens(ipaddress.ip_address(address))


class _Socket(httpcore.AsyncNetworkStream):
    """A connected stream as the dialler sees it: only its two addresses matter here."""

    def __init__(self, local: str, peer: str) -> None:
        self._info = {"client_addr": (local, 50000), "server_addr": (peer, 80)}

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return b""

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        return None

    async def aclose(self) -> None:
        return None

    def get_extra_info(self, info: str) -> Any:
        return self._info.get(info)


def test_an_opened_private_address_that_is_this_machine_itself_is_refused() -> None:
    with pytest.raises(PeerRefused):
        check_peer(_Socket(WIKI, WIKI), ipaddress.ip_address(WIKI))
    check_peer(_Socket("192.168.1.5", WIKI), ipaddress.ip_address(WIKI))


@pytest.fixture
def home_runtime(paths: Paths, wiki: Peer) -> Runtime:
    from spyglass.net.seams import DIALLER, RESOLVER

    runtime = build_runtime(paths, overrides={"fetch.private_network": ["wiki.home.arpa"]})
    runtime.seams.provide(RESOLVER, StaticResolver({"wiki.home.arpa": [WIKI]}))
    runtime.seams.provide(DIALLER, MappedDialler({WIKI: wiki.address}))
    runtime.policy.set(WEB_ACCESS, True)
    return runtime


async def test_the_card_says_an_opened_host_is_on_the_home_network_and_approval_reads_it(
    home_runtime: Runtime, wiki: Peer
) -> None:
    arguments = {"url": "http://wiki.home.arpa/"}
    pending = await home_runtime.executor.ainvoke("web.fetch", 1, arguments, channel="test")
    assert pending.pending_confirmation is not None, pending.to_dict()
    notices = pending.pending_confirmation.notices
    assert [n.kind for n in notices] == [NOTICE_KIND, "fetch.render"]
    assert notices[0].argument == "url"
    assert "your own network" in notices[0].message
    assert wiki.connections == 0
    outcome = await home_runtime.executor.ainvoke(
        "web.fetch",
        1,
        arguments,
        channel="test",
        turn=Turn(),
        confirmation_token=pending.pending_confirmation.token,
    )
    assert outcome.status == "ok", outcome.to_dict()
    assert outcome.result is not None and outcome.result["title"] == "Home wiki"


def test_an_opened_host_is_not_subject_to_the_public_allow_list() -> None:
    guard = Guard(
        domains=DomainRules.from_settings(allow=["example.com"], deny=[]),
        private=PrivateNetwork.parse(["wiki.home.arpa"]),
    )
    assert guard.check("http://wiki.home.arpa/").private
    with pytest.raises(CapabilityError) as caught:
        guard.check("https://example.org/")
    assert caught.value.reason == "domain_not_allowed"
