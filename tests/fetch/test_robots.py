"""``fetch.respect_robots``: robots.txt is read through the same guard, once per turn."""

from __future__ import annotations

import pytest

from spyglass.fetch.fetcher import FetchConfig, Fetcher
from spyglass.fetch.robots import RobotsAnswer, RobotsRules, robots_url
from spyglass.net.errors import TargetRejected
from tests.support.fetch_peers import MappedDialler, Peer, Route, StaticResolver, page

PUBLIC = "93.184.215.40"
HTML = "<html><body><p>" + "Some public text. " * 30 + "</p></body></html>"
ROBOTS = "User-agent: *\nDisallow: /private\n"


async def run(routes: dict[str, Route], paths: list[str]) -> tuple[list[object], Peer]:
    outcomes: list[object] = []
    cache: dict[str, RobotsRules] = {}
    with Peer(routes) as peer:
        resolver = StaticResolver({"example.com": [PUBLIC]})
        dialler = MappedDialler({PUBLIC: peer.address})
        config = FetchConfig(respect_robots=True, user_agent="Spyglass/1")
        async with Fetcher(config, resolver, dialler) as fetcher:
            for path in paths:
                try:
                    outcomes.append(
                        (
                            await fetcher.fetch(f"http://example.com{path}", robots_cache=cache)
                        ).status
                    )
                except TargetRejected as exc:
                    outcomes.append(exc.reason)
    return outcomes, peer


async def test_a_disallowed_path_is_refused_and_robots_is_read_once_per_turn() -> None:
    routes = {"/robots.txt": page(ROBOTS, "text/plain"), "*": page(HTML)}
    outcomes, peer = await run(routes, ["/public", "/private/x", "/other"])
    assert outcomes == [200, "robots", 200]
    assert peer.requests["/robots.txt"] == 1
    assert peer.requests["/private/x"] == 0


@pytest.mark.parametrize(("status", "expected"), [(404, 200), (403, "robots"), (503, "robots")])
async def test_robots_status_codes_follow_rfc_9309(status: int, expected: object) -> None:
    routes = {"/robots.txt": page("", "text/plain", status=status), "*": page(HTML)}
    outcomes, _ = await run(routes, ["/page"])
    assert outcomes == [expected]


def test_unreachable_robots_allows_and_parsed_rules_apply_per_agent() -> None:
    assert RobotsRules.from_answer(None).allows("http://e.com/x", "Spyglass")
    rules = RobotsRules.from_answer(RobotsAnswer(200, b"User-agent: Spyglass\nDisallow: /\n"))
    assert not rules.allows("http://e.com/x", "Spyglass/1.0")
    assert rules.allows("http://e.com/x", "OtherBot")


def test_the_robots_url_keeps_a_non_default_port_and_brackets_ipv6() -> None:
    assert robots_url("https", "example.com", None) == "https://example.com/robots.txt"
    assert robots_url("http", "example.com", 8080) == "http://example.com:8080/robots.txt"
    assert robots_url("http", "2606:4700::1111", 80) == "http://[2606:4700::1111]/robots.txt"
