"""``spyglass policy show|enable|disable``."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.support import run


def test_web_access_is_off_on_a_fresh_home(home: Path) -> None:
    result = run("policy", "show", "--json", home=home)
    assert result.code == 0
    assert json.loads(result.stdout)["web_access_enabled"] is False


def test_enable_explains_what_it_means_and_disable_turns_it_off(home: Path) -> None:
    enabled = run("policy", "enable", home=home)
    assert enabled.code == 0
    assert "leave this machine" in enabled.stdout and "approve" in enabled.stdout
    assert json.loads((home / "capabilities" / "policy.json").read_text()) == {
        "web_access_enabled": True
    }
    assert json.loads(run("policy", "show", "--json", home=home).stdout)["web_access_enabled"]
    run("policy", "disable", home=home)
    assert "off" in run("policy", "show", home=home).stdout


def test_malformed_policy_file_reads_as_off_and_is_said_once_per_command(home: Path) -> None:
    policy = home / "capabilities" / "policy.json"
    policy.parent.mkdir(parents=True)
    policy.write_text("{broken")
    result = run("policy", "show", home=home)
    assert result.code == 0
    assert "off" in result.stdout
    assert (result.stdout + result.stderr).count("is not valid JSON") == 1
    assert "Traceback" not in result.stderr
    for command in (("search", "tides"), ("fetch", "https://example.org/")):
        refused = run(*command, home=home)
        assert (refused.stdout + refused.stderr).count("is not valid JSON") == 1, command


def test_enable_when_the_policy_cannot_be_written_fails_with_the_reason(home: Path) -> None:
    (home / "capabilities").write_text("not a folder")
    result = run("policy", "enable", home=home)
    assert result.code == 1
    assert "cannot write the policy file" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_broken_policy_file_is_reported_as_unreadable_by_status_and_show(home: Path) -> None:
    policy = home / "capabilities" / "policy.json"
    policy.parent.mkdir(parents=True)
    policy.write_text("{broken")
    for command in ("status", "show"):
        result = run("policy", command, home=home)
        assert result.code == 0, result.stderr
        assert "POLICY_UNREADABLE" in result.stdout
        assert str(policy) in result.stdout
        assert "spyglass policy enable" in result.stdout
    as_json = json.loads(run("policy", "status", "--json", home=home).stdout)
    assert as_json["web_access_enabled"] is False
    assert as_json["problem"]["code"] == "POLICY_UNREADABLE"
    assert as_json["problem"]["path"] == str(policy)


def test_a_switch_given_a_string_is_reported_as_a_broken_policy_file_not_as_off(
    home: Path,
) -> None:
    policy = home / "capabilities" / "policy.json"
    policy.parent.mkdir(parents=True)
    policy.write_text('{"web_access_enabled": "true"}')
    result = run("policy", "show", home=home)
    assert result.code == 0, result.stderr
    assert "POLICY_UNREADABLE" in result.stdout
    assert 'web_access_enabled the value "true"' in result.stdout


def test_status_is_the_same_as_show(home: Path) -> None:
    shown = run("policy", "show", "--json", home=home)
    status = run("policy", "status", "--json", home=home)
    assert status.code == 0 and json.loads(status.stdout) == json.loads(shown.stdout)


def test_fetch_can_be_switched_off_on_its_own_and_enable_keeps_it_off(home: Path) -> None:
    off = run("policy", "disable", "fetch", home=home)
    assert off.code == 0 and "policy enable fetch" in off.stdout
    enabled = run("policy", "enable", home=home)
    assert "Still switched off: fetch" in enabled.stdout
    shown = json.loads(run("policy", "show", "--json", home=home).stdout)
    assert shown["web_access_enabled"] is True
    assert shown["web_search_enabled"] is True and shown["web_fetch_enabled"] is False
    run("policy", "enable", "fetch", home=home)
    assert json.loads(run("policy", "show", "--json", home=home).stdout)["web_fetch_enabled"]


def test_an_unknown_switch_name_is_a_usage_error_listing_the_choices(home: Path) -> None:
    result = run("policy", "disable", "shopping", home=home)
    assert result.code == 2
    assert "search" in result.stderr and "fetch" in result.stderr
    assert not (home / "capabilities" / "policy.json").exists()


def test_approvals_shows_and_switches_how_often_each_capability_asks(home: Path) -> None:
    shown = run("policy", "approvals", "--json", home=home)
    assert shown.code == 0
    assert json.loads(shown.stdout) == {"approvals_search": "each", "approvals_fetch": "each"}
    changed = run("policy", "approvals", "fetch", "flagged", home=home)
    assert changed.code == 0
    assert "approvals fetch: flagged" in changed.stdout
    assert "audit log" in changed.stdout
    stored = json.loads((home / "capabilities" / "policy.json").read_text())
    assert stored["approvals"] == {"fetch": "flagged"}
    assert json.loads(run("policy", "show", "--json", home=home).stdout)["approvals_fetch"] == (
        "flagged"
    )
    assert "approvals fetch: flagged" in run("policy", "show", home=home).stdout
    run("policy", "approvals", "fetch", "default", home=home)
    back = json.loads(run("policy", "approvals", "--json", home=home).stdout)
    assert back["approvals_fetch"] == "each"


def test_approvals_follows_the_setting_until_the_owner_chooses(home: Path) -> None:
    (home / "config.toml").write_text('[approvals]\nsearch = "flagged"\n')
    shown = json.loads(run("policy", "approvals", "--json", home=home).stdout)
    assert shown["approvals_search"] == "flagged"
    run("policy", "approvals", "search", "each", home=home)
    assert json.loads(run("policy", "approvals", "--json", home=home).stdout)[
        "approvals_search"
    ] == ("each")


def test_approvals_with_a_capability_but_no_mode_says_what_to_add(home: Path) -> None:
    result = run("policy", "approvals", "search", home=home)
    assert result.code == 2
    assert "each|flagged|default" in result.stderr
    wrong = run("policy", "approvals", "search", "sometimes", home=home)
    assert wrong.code == 2 and "flagged" in wrong.stderr
