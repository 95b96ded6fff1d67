"""``spyglass capabilities`` and ``spyglass invoke``: listing and calling through the executor."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.support import run, run_on_terminal
from tests.search.replay import Reply, serving


def test_capabilities_json_lists_names_classification_bounds_and_schemas(home: Path) -> None:
    result = run("capabilities", "--json", home=home)
    assert result.code == 0
    listed = {c["name"]: c for c in json.loads(result.stdout)}
    health = listed["system.health"]
    assert health["wire_name"] == "system_health"
    assert (health["side_effect"], health["network"], health["confirmation"]) == (
        "read_only",
        "local",
        "automatic",
    )
    assert health["bounds"]["timeout_seconds"] > 0
    assert health["argument_schema"]["additionalProperties"] is False
    assert "properties" in health["result_schema"]


def test_capabilities_human_output_shows_each_capability(home: Path) -> None:
    result = run("capabilities", home=home)
    assert result.code == 0
    assert "system.health" in result.stdout and "automatic" in result.stdout


def test_invoke_of_a_local_capability_exits_zero_with_the_outcome(home: Path) -> None:
    result = run("invoke", "system.health", "--json", home=home)
    assert result.code == 0
    outcome = json.loads(result.stdout)
    assert outcome["status"] == "ok"
    assert outcome["result"]["web_access_enabled"] is False


def test_invoke_of_an_unknown_capability_exits_three(home: Path) -> None:
    result = run("invoke", "web.teleport", home=home)
    assert result.code == 3
    assert "unknown capability web.teleport" in result.stderr


def test_invalid_arguments_are_a_usage_error_naming_the_field(home: Path) -> None:
    # Exit 2, as for arguments that are not JSON at all: both are the command line's mistake.
    result = run("invoke", "system.health", '{"verbose": true}', home=home)
    assert result.code == 2
    assert "1 unexpected field" in result.stderr


def test_arguments_that_are_not_json_are_a_usage_error_with_a_hint(home: Path) -> None:
    result = run("invoke", "system.health", "{oops", home=home)
    assert result.code == 2
    assert "not valid JSON" in result.stderr and "hint:" in result.stderr
    assert "Traceback" not in result.stderr


def test_arguments_nested_too_deeply_are_a_usage_error_not_a_traceback(home: Path) -> None:
    result = run("invoke", "system.health", "[" * 50_000 + "]" * 50_000, home=home)
    assert result.code == 2
    assert "deeper than can be read" in result.stderr and "hint:" in result.stderr
    assert "Traceback" not in result.stderr


def test_policy_off_rejects_a_web_call_with_how_to_enable_it(home: Path) -> None:
    result = run("invoke", "web.fetch", '{"url": "https://example.com/"}', home=home)
    assert result.code == 3
    assert "spyglass policy enable" in result.stderr


def test_approval_needed_without_a_terminal_exits_four_with_how_to_approve(home: Path) -> None:
    run("policy", "enable", home=home)
    result = run("invoke", "web.fetch", '{"url": "https://example.com/"}', "--json", home=home)
    assert result.code == 4
    assert json.loads(result.stdout)["status"] == "pending_confirmation"
    assert "--yes" in result.stderr


def test_prompt_shows_the_exact_arguments_and_no_denies(home: Path) -> None:
    run("policy", "enable", home=home)
    url = "https://example.com/a%20path?with=exact&chars=[x]"
    result = run_on_terminal("invoke", "web.fetch", json.dumps({"url": url}), home=home, answer="n")
    assert url in result.stderr
    assert "leaves this machine" in result.stderr
    assert result.code == 4
    events = json.loads(run("audit", "tail", "--json", home=home).stdout)
    assert [e["outcome"] for e in events] == ["pending_confirmation", "denied"]


def test_prompt_answered_yes_runs_the_call_once(home: Path) -> None:
    run("policy", "enable", home=home)
    # A loopback SearXNG-shaped server: approved, run once, and nothing leaves the host.
    with serving() as searxng:
        searxng.set("/search", Reply(body={"query": "tea", "results": []}))
        env = {
            "SPYGLASS_SEARCH__PROVIDERS": "searxng",
            "SPYGLASS_SEARCH__SEARXNG__BASE_URL": searxng.url,
        }
        result = run_on_terminal(
            "invoke", "web.search", '{"query": "tea"}', home=home, answer="y", env=env
        )
        assert len(searxng.requests) == 1
    assert result.code == 0, result.stderr
    events = json.loads(run("audit", "tail", "--json", home=home).stdout)
    assert [(e["outcome"], e.get("confirmed_by")) for e in events] == [
        ("pending_confirmation", None),
        ("ok", "owner"),
    ]


def test_a_call_that_can_only_be_refused_is_refused_without_a_prompt(home: Path) -> None:
    run("policy", "enable", home=home)
    result = run_on_terminal(
        "invoke", "web.fetch", '{"url": "http://127.0.0.1:9/"}', home=home, answer="y"
    )
    assert result.code == 3
    assert "Approve?" not in result.stderr
    events = json.loads(run("audit", "tail", "--json", home=home).stdout)
    assert [(e["outcome"], e["stage"], e["code"]) for e in events] == [
        ("rejected", "check", "FETCH_TARGET_REJECTED")
    ]


def test_yes_flag_approves_a_typed_call(home: Path) -> None:
    run("policy", "enable", home=home)
    result = run(
        "invoke", "web.fetch", '{"url": "http://127.0.0.1:9/"}', "--yes", "--json", home=home
    )
    assert result.code == 3
    assert json.loads(result.stdout)["error"]["reason"] == "private_address"


def test_piped_table_is_not_cut_to_eighty_columns(home: Path) -> None:
    result = run("capabilities", "--no-schemas", home=home, env={"COLUMNS": ""})
    assert result.code == 0
    for name in ("system.health", "web.fetch", "web.search", "confirmation"):
        assert name in result.stdout
