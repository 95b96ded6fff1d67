"""One host-name table: the fetch guard, the search filters and the settings agree on it."""

from __future__ import annotations

from pathlib import Path

import pytest

from spyglass.errors import ConfigError
from spyglass.net import hostnames
from spyglass.net.errors import TargetRejected
from spyglass.net.guard import Guard
from spyglass.paths import Paths
from spyglass.search.domains import DomainFilterError, normalised
from spyglass.settings import load_settings

LOCAL = ["wiki.home.arpa", "hidden.onion", "shop.test", "nas.home", "printer.local", "x.corp"]


@pytest.mark.parametrize("name", LOCAL)
def test_a_local_name_is_refused_by_the_guard_the_search_filters_and_the_settings(
    name: str, tmp_path: Path
) -> None:
    with pytest.raises(TargetRejected) as caught:
        Guard().check(f"https://{name}/")
    assert caught.value.reason == "private_address"

    with pytest.raises(DomainFilterError):
        normalised("include_domains", [name])

    with pytest.raises(ConfigError, match=r"fetch\.allow_domains"):
        load_settings(Paths(tmp_path), environ={"SPYGLASS_FETCH__ALLOW_DOMAINS": name})


@pytest.mark.parametrize("spelling", ["Wiki.Home.Arpa", "wiki.home.arpa.", "WIKI.HOME.ARPA."])
def test_every_spelling_of_a_local_name_is_local(spelling: str) -> None:
    assert hostnames.is_local(hostnames.normalise(spelling))


@pytest.mark.parametrize("name", ["home.example", "onion.example.com", "test.org", "arpa.net"])
def test_a_public_name_that_merely_contains_a_local_word_is_not_local(name: str) -> None:
    assert not hostnames.is_local(name)
    assert hostnames.domain_rule(name) == name


def test_a_rule_and_a_url_host_normalise_the_same_way_so_an_idn_deny_rule_matches(
    tmp_path: Path,
) -> None:
    settings = load_settings(
        Paths(tmp_path), environ={"SPYGLASS_FETCH__DENY_DOMAINS": "Straße.Example."}
    )
    from spyglass.fetch.fetcher import FetchConfig

    guard = FetchConfig.from_settings(settings.fetch).guard
    with pytest.raises(TargetRejected) as caught:
        guard.check("https://www.straße.example/page")
    assert caught.value.reason == "domain_denied"


def test_settings_domain_lists_are_normalised_once(tmp_path: Path) -> None:
    settings = load_settings(
        Paths(tmp_path), environ={"SPYGLASS_FETCH__ALLOW_DOMAINS": "Example.COM.,*.docs.org"}
    )
    assert settings.fetch.allow_domains == ["example.com", "docs.org"]
