"""Routing: the weights spec, the stable SHA-256 choice, and the fallback order."""

from __future__ import annotations

import uuid
from collections import Counter

import pytest

from spyglass.providers.routing import RoutingError, choose, names, parse_weights, plan

KNOWN = ("searxng", "duckduckgo", "brave", "tavily")


def test_a_single_name_weighs_100() -> None:
    assert parse_weights("duckduckgo", KNOWN) == (("duckduckgo", 100),)


def test_weighted_spec_is_parsed_in_order() -> None:
    assert parse_weights(" searxng:70 , duckduckgo:30 ", KNOWN) == (
        ("searxng", 70),
        ("duckduckgo", 30),
    )


def test_the_names_of_a_spec_come_in_order_without_weights() -> None:
    assert names(" searxng:70 , duckduckgo:30 ,") == ["searxng", "duckduckgo"]
    assert names("") == []


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("", "no search provider is configured"),
        ("bing", "bing is not a search provider"),
        ("searxng:70,duckduckgo:20", "add up to 90"),
        ("searxng:70,searxng:30", "twice"),
        ("searxng:0,duckduckgo:100", "positive whole number"),
        ("searxng:-5,duckduckgo:105", "positive whole number"),
        ("searxng:7.5,duckduckgo:92.5", "positive whole number"),
        ("searxng,duckduckgo:30", "searxng has no weight"),
        ("Bad Name!:100", "an entry is not a search provider"),
    ],
)
def test_bad_specs_are_not_configured_with_a_clear_message(spec: str, words: str) -> None:
    with pytest.raises(RoutingError) as caught:
        parse_weights(spec, KNOWN)
    assert words in str(caught.value)


def test_the_same_invocation_always_picks_the_same_provider() -> None:
    weights = parse_weights("searxng:50,duckduckgo:50", KNOWN)
    for _ in range(50):
        invocation = uuid.uuid4().hex
        first = choose(weights, "web.search", invocation)
        assert all(choose(weights, "web.search", invocation) == first for _ in range(5))


def test_distribution_over_many_invocations_follows_the_weights() -> None:
    weights = parse_weights("searxng:70,duckduckgo:20,brave:10", KNOWN)
    runs = 20000
    # Deterministic ids, so the test cannot flake; the hash spreads them.
    seen = Counter(choose(weights, "web.search", f"{n:032x}") for n in range(runs))
    for name, weight in weights:
        assert abs(seen[name] / runs - weight / 100) < 0.02, seen


def test_plan_puts_the_choice_first_then_distinct_fallbacks() -> None:
    order = plan(
        "searxng",
        ["duckduckgo", "searxng", "duckduckgo", "brave"],
        KNOWN,
        capability="web.search",
        invocation_id="abc",
    )
    assert order == ["searxng", "duckduckgo", "brave"]


def test_an_unknown_fallback_is_not_configured() -> None:
    with pytest.raises(RoutingError) as caught:
        plan("searxng", ["google"], KNOWN, capability="web.search", invocation_id="abc")
    assert "search.fallback: google is not a search provider" in str(caught.value)
