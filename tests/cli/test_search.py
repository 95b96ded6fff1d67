"""``spyglass search`` as a real subprocess against a loopback SearXNG-shaped server."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.support import run, run_on_terminal
from tests.search.replay import ReplayServer, Reply, serving

ANSWER = {
    "query": "tea",
    "results": [
        {
            "url": "https://tea.example/green",
            "title": "Green <b>tea</b>",
            "content": "Leaves &amp; water",
        },
        {
            "url": "https://tea.example/black",
            "title": "[bold]Black[/bold] tea",
            "content": "Strong",
        },
    ],
    "unresponsive_engines": [],
}


@pytest.fixture
def searxng() -> Iterator[ReplayServer]:
    with serving() as server:
        server.set("/search", Reply(body=ANSWER))
        yield server


def _env(server: ReplayServer) -> dict[str, str]:
    return {
        "SPYGLASS_SEARCH__PROVIDERS": "searxng",
        "SPYGLASS_SEARCH__SEARXNG__BASE_URL": server.url,
    }


def _enable(home: Path) -> None:
    assert run("policy", "enable", home=home).code == 0


def test_search_prints_a_numbered_list_of_title_url_and_snippet(
    home: Path, searxng: ReplayServer
) -> None:
    _enable(home)
    result = run("search", "tea", "--yes", home=home, env=_env(searxng))
    assert result.code == 0, result.stderr
    lines = [line.strip() for line in result.stdout.splitlines() if line.strip()]
    assert lines[:6] == [
        "1. Green tea",
        "https://tea.example/green",
        "Leaves & water",
        "2. [bold]Black[/bold] tea",
        "https://tea.example/black",
        "Strong",
    ]
    assert "2 result(s) from searxng" in result.stdout


def test_json_prints_the_outcome(home: Path, searxng: ReplayServer) -> None:
    _enable(home)
    result = run("search", "tea", "--yes", "--json", "--count", "1", home=home, env=_env(searxng))
    outcome = json.loads(result.stdout)
    assert result.code == 0 and outcome["status"] == "ok"
    assert outcome["result"]["provider"] == "searxng" and outcome["result"]["result_count"] == 1


def test_filters_reach_the_provider(home: Path, searxng: ReplayServer) -> None:
    _enable(home)
    result = run(
        "search",
        "tea",
        "--yes",
        "--time-range",
        "week",
        "--site",
        "Tea.Example",
        home=home,
        env=_env(searxng),
    )
    assert result.code == 0, result.stderr
    assert searxng.last.query["q"] == ["tea site:tea.example"]
    assert searxng.last.query["time_range"] == ["week"]


def test_provider_flag_overrides_the_configured_providers(
    home: Path, searxng: ReplayServer
) -> None:
    _enable(home)
    env = {**_env(searxng), "SPYGLASS_SEARCH__PROVIDERS": "brave"}
    result = run("search", "tea", "--yes", "--json", "--provider", "searxng", home=home, env=env)
    assert result.code == 0, result.stderr
    assert json.loads(result.stdout)["result"]["provider"] == "searxng"


def test_an_unknown_provider_flag_is_a_usage_error(home: Path) -> None:
    result = run("search", "tea", "--provider", "google", home=home)
    assert result.code == 2 and "'google' is not a search provider" in result.stderr
    assert "duckduckgo" in result.stderr


def test_without_a_terminal_or_yes_nothing_is_sent(home: Path, searxng: ReplayServer) -> None:
    _enable(home)
    result = run("search", "tea", home=home, env=_env(searxng))
    assert result.code == 4 and "--yes" in result.stderr
    assert searxng.requests == []


def test_the_terminal_prompt_shows_the_exact_query_and_runs_on_yes(
    home: Path, searxng: ReplayServer
) -> None:
    _enable(home)
    result = run_on_terminal("search", "green tea -milk", home=home, answer="y", env=_env(searxng))
    shown = re.sub(r"\x1b\[[0-9;]*m", "", result.stderr)
    assert 'query: "green tea -milk"' in shown
    assert "Search SearXNG for:" in shown  # who receives the query
    assert result.code == 0 and "1. Green tea" in result.stdout
    assert searxng.last.query["q"] == ["green tea -milk"]


def test_web_access_off_is_refused_with_how_to_enable(home: Path, searxng: ReplayServer) -> None:
    result = run("search", "tea", "--yes", home=home, env=_env(searxng))
    assert result.code == 3 and "spyglass policy enable" in result.stderr
    assert searxng.requests == []


def test_a_provider_failure_is_explained_without_a_traceback(
    home: Path, searxng: ReplayServer
) -> None:
    _enable(home)
    searxng.set("/search", Reply(403, "<html>Forbidden</html>", {"Content-Type": "text/html"}))
    result = run("search", "tea", "--yes", home=home, env=_env(searxng))
    assert result.code == 1
    assert "search.formats" in result.stderr and "SEARCH_PROVIDER_REJECTED" in result.stderr
    assert "Traceback" not in result.stderr


def test_bad_arguments_are_refused_with_the_flag_named(home: Path) -> None:
    _enable(home)
    result = run("search", "tea", "--yes", "--site", "10.0.0.1", home=home)
    assert result.code == 2 and "--site '10.0.0.1'" in result.stderr


def test_search_works_against_a_duckduckgo_shaped_endpoint(home: Path) -> None:
    _enable(home)
    page = (
        "<html><body><div id='links'><div class='result results_links web-result'>"
        "<h2 class='result__title'><a class='result__a' "
        "href='//duckduckgo.com/l/?uddg=https%3A%2F%2Fduck.example%2Fpond&amp;rut=1'>Pond "
        "<b>life</b></a></h2><a class='result__snippet'>Ducks &amp; more</a></div></div>"
        "</body></html>"
    )
    with serving() as server:
        server.set("/html/", Reply(body=page, headers={"Content-Type": "text/html"}))
        env = {"SPYGLASS_SEARCH__DUCKDUCKGO__BASE_URL": server.url}
        result = run("search", "pond", "--yes", home=home, env=env)
    assert result.code == 0, result.stderr
    lines = [line.strip() for line in result.stdout.splitlines() if line.strip()]
    assert lines[:3] == ["1. Pond life", "https://duck.example/pond", "Ducks & more"]
    assert "1 result(s) from duckduckgo" in result.stdout


@pytest.mark.parametrize(
    ("flags", "expected"),
    [
        (["--site", "nas.local"], "--site 'nas.local' cannot be used"),
        (["--exclude", "a.example", "--exclude", "10.0.0.1"], "--exclude '10.0.0.1' cannot be"),
        (["--site", "a.example", "--exclude", "b.example"], "give --site or --exclude, not both"),
    ],
)
def test_refusals_speak_of_the_flags_the_person_typed(
    home: Path, searxng: ReplayServer, flags: list[str], expected: str
) -> None:
    _enable(home)
    result = run("search", "tea", *flags, home=home, env=_env(searxng))
    # Malformed arguments are a usage mistake (2), as click's own range checks are.
    assert result.code == 2, result.stderr
    assert expected in result.stderr
    assert "include_domains" not in result.stderr and "exclude_domains" not in result.stderr
    assert searxng.requests == []


def test_an_upper_case_site_with_a_trailing_dot_is_normalised(
    home: Path, searxng: ReplayServer
) -> None:
    _enable(home)
    result = run("search", "tea", "--yes", "--site", "TEA.Example.", home=home, env=_env(searxng))
    assert result.code == 0, result.stderr
    assert searxng.last.query["q"] == ["tea site:tea.example"]


def test_the_terminal_prompt_lists_what_the_privacy_check_found(
    home: Path, searxng: ReplayServer
) -> None:
    _enable(home)
    query = "reply to jane.doe@example.com"
    result = run_on_terminal("search", query, home=home, answer="n", env=_env(searxng))
    shown = re.sub(r"\x1b\[[0-9;]*m", "", result.stderr)
    assert '! query contains an email address: "jane.doe@example.com"' in shown
    assert result.code != 0 and searxng.requests == []


def test_the_terminal_prompt_shows_a_query_that_cannot_pass_for_spyglass_s_own_lines(
    home: Path, searxng: ReplayServer
) -> None:
    _enable(home)
    query = "tea" + "\n" * 60 + "my password is hunter2\n(no private data found) \u202egnp.exe"
    result = run_on_terminal("search", query, home=home, answer="n", env=_env(searxng))
    shown = re.sub(r"\x1b\[[0-9;]*m", "", result.stderr)
    (line,) = [line for line in shown.splitlines() if "query:" in line]
    # The whole query on its one line, quoted, every newline and the override visible.
    assert line.strip() == (
        'query: "tea' + "\\n" * 60 + "my password is hunter2\\n(no private data found) "
        '\\u202egnp.exe"'
    )
    lines = shown.splitlines()
    assert not any(x.strip().startswith("(no private data found)") for x in lines)
    assert "\u202e" not in shown
    assert "right-to-left override (U+202E)" in shown
    assert result.code != 0 and searxng.requests == []


@pytest.mark.parametrize(
    "command",
    [
        ("search", "-n", "0", "tea"),
        ("search", "-n", "21", "tea"),
        ("fetch", "--max-chars", "10", "https://example.org/"),
    ],
)
def test_a_flag_value_out_of_range_is_a_usage_error_whoever_checks_it(
    home: Path, command: tuple[str, ...]
) -> None:
    _enable(home)
    result = run(*command, home=home)
    assert result.code == 2, result.stderr


def test_the_count_flag_s_help_states_the_schema_s_own_maximum(home: Path) -> None:
    from spyglass.capabilities.search import MAX_RESULTS

    shown = run("search", "--help", home=home).stdout
    assert f"1–{MAX_RESULTS};" in " ".join(shown.split())
