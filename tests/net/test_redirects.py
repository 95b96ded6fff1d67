"""Redirects: followed per ``fetch.redirects``, every hop re-checked, at most five."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from spyglass.errors import CapabilityError
from spyglass.fetch.fetcher import FetchConfig, FetchedPage, Fetcher
from spyglass.net.errors import TargetRejected
from spyglass.net.redirects import Mode, RedirectPolicy, registrable_domain, same_site
from tests.support.fetch_peers import (
    MappedDialler,
    Peer,
    Route,
    StaticResolver,
    page,
    redirect,
)

HTML = (
    "<html><head><title>Landing</title></head><body><p>"
    + "Landing text. " * 30
    + "</p></body></html>"
)
PUBLIC = "93.184.215.20"
OTHER = "93.184.215.21"
PRIVATE = "192.168.7.7"


@pytest.fixture
def canary() -> Iterator[Peer]:
    with Peer({"*": page("canary reached")}) as peer:
        yield peer


@pytest.fixture
def other() -> Iterator[Peer]:
    with Peer({"*": page(HTML)}) as peer:
        yield peer


def chain_routes(hops: int) -> dict[str, Route]:
    routes: dict[str, Route] = {f"/hop{n}": redirect(f"/hop{n + 1}") for n in range(hops)}
    routes[f"/hop{hops}"] = page(HTML)
    return routes


def build(site: Peer, other: Peer, canary: Peer) -> tuple[StaticResolver, MappedDialler]:
    resolver = StaticResolver(
        {
            "example.com": [PUBLIC],
            "www.example.com": [PUBLIC],
            "other.org": [OTHER],
            "inside.example.com": [PRIVATE],
        }
    )
    dialler = MappedDialler({PUBLIC: site.address, OTHER: other.address, PRIVATE: canary.address})
    return resolver, dialler


async def fetch(
    site: Peer, other: Peer, canary: Peer, url: str, mode: Mode = "same-site"
) -> FetchedPage:
    resolver, dialler = build(site, other, canary)
    config = FetchConfig(redirects=RedirectPolicy(mode))
    async with Fetcher(config, resolver, dialler) as fetcher:
        return await fetcher.fetch(url)


async def test_a_same_site_redirect_is_followed_and_the_chain_reported(
    other: Peer, canary: Peer
) -> None:
    with Peer({"/old": redirect("http://www.example.com/new", 301), "/new": page(HTML)}) as site:
        fetched = await fetch(site, other, canary, "http://example.com/old")
    assert fetched.status == 200
    assert fetched.final_url == "http://www.example.com/new"
    assert fetched.redirect_chain == ("http://www.example.com/new",)
    assert fetched.redirected is False
    assert b"Landing text." in fetched.body


async def test_a_cross_site_redirect_is_reported_not_followed(other: Peer, canary: Peer) -> None:
    with Peer({"/go": redirect("https://other.org/landing")}) as site:
        fetched = await fetch(site, other, canary, "http://example.com/go")
    assert fetched.redirected is True
    assert fetched.final_url == "https://other.org/landing"
    assert fetched.body == b""
    assert fetched.status == 302
    assert other.connections == 0


async def test_redirects_mode_all_follows_another_site_after_checking_it(
    other: Peer, canary: Peer
) -> None:
    with Peer({"/go": redirect("http://other.org/landing")}) as site:
        fetched = await fetch(site, other, canary, "http://example.com/go", mode="all")
    assert fetched.final_url == "http://other.org/landing"
    assert other.requests["/landing"] == 1


async def test_redirects_mode_none_does_not_follow_even_the_same_site(
    other: Peer, canary: Peer
) -> None:
    with Peer({"/a": redirect("/b"), "/b": page(HTML)}) as site:
        fetched = await fetch(site, other, canary, "http://example.com/a", mode="none")
        assert site.requests["/b"] == 0
    assert fetched.redirected is True
    assert fetched.final_url == "http://example.com/b"


@pytest.mark.parametrize(
    ("location", "reason"),
    [
        ("http://127.0.0.1/admin", "private_address"),
        ("http://[::ffff:192.168.7.7]/", "private_address"),
        ("http://169.254.169.254/latest/meta-data/", "private_address"),
        ("http://inside.example.com/", "private_address"),
        ("http://localhost:6379/", "private_address"),
        ("file:///etc/passwd", "scheme"),
        ("gopher://example.com/", "scheme"),
        ("http://user:pw@example.com/", "credentials"),
    ],
)
async def test_a_redirect_to_a_forbidden_target_is_refused_without_connecting(
    location: str, reason: str, other: Peer, canary: Peer
) -> None:
    with Peer({"/go": redirect(location)}) as site, pytest.raises(TargetRejected) as caught:
        await fetch(site, other, canary, "http://example.com/go", mode="all")
    assert caught.value.reason == reason
    assert canary.connections == 0


async def test_five_hops_are_followed(other: Peer, canary: Peer) -> None:
    with Peer(chain_routes(5)) as site:
        fetched = await fetch(site, other, canary, "http://example.com/hop0")
    assert len(fetched.redirect_chain) == 5
    assert fetched.final_url == "http://example.com/hop5"


async def test_a_sixth_hop_has_its_own_code_and_suggests_what_to_do(
    other: Peer, canary: Peer
) -> None:
    with Peer(chain_routes(6)) as site:
        with pytest.raises(CapabilityError) as caught:
            await fetch(site, other, canary, "http://example.com/hop0")
        assert site.requests["/hop6"] == 0
    assert caught.value.code == "FETCH_TOO_MANY_REDIRECTS"
    assert not caught.value.retryable
    assert "more than 5" in caught.value.message


def test_registrable_domains_come_from_the_bundled_suffix_list() -> None:
    assert registrable_domain("news.bbc.co.uk") == "bbc.co.uk"
    assert registrable_domain("a.b.example.com") == "example.com"
    assert same_site("www.example.com", "example.com")
    assert not same_site("alice.github.io", "bob.github.io")
    assert not same_site("example.com", "example.org")
    assert not same_site("example.com", "notexample.com")
