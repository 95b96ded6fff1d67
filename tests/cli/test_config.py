"""``spyglass config show|path|init``."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.cli.support import SPYGLASS, run


def test_show_prints_effective_settings_with_secrets_masked(home: Path) -> None:
    (home / "config.toml").write_text('[search.brave]\napi_key = "sk-very-secret"\n')
    env = {"SPYGLASS_LLM__API_KEY": "sk-also-secret", "SPYGLASS_FETCH__REDIRECTS": "none"}
    shown = run("config", "show", "--json", home=home, env=env)
    assert shown.code == 0
    data = json.loads(shown.stdout)
    assert data["fetch"]["redirects"] == "none"
    assert data["search"]["brave"]["api_key"] == "********"
    human = run("config", "show", home=home, env=env)
    for output in (shown.stdout, human.stdout, human.stderr):
        assert "sk-very-secret" not in output and "sk-also-secret" not in output
    assert 'redirects = "none"' in human.stdout


def test_malformed_config_is_a_clear_usage_error_naming_the_file(home: Path) -> None:
    (home / "config.toml").write_text("[fetch]\nmax_chars = 'many'\n")
    result = run("config", "show", home=home)
    assert result.code == 2
    assert str(home / "config.toml") in result.stderr
    assert "fetch.max_chars" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("command", [("config", "show"), ("policy", "show"), ("serve",)])
def test_a_config_file_that_is_not_utf8_is_a_usage_error_naming_it_for_every_command(
    home: Path, command: tuple[str, ...]
) -> None:
    (home / "config.toml").write_bytes(b"[fetch]\n# r\xe9sum\xe9\nmax_chars = 100\n")
    result = run(*command, home=home)
    assert result.code == 2
    assert f"{home / 'config.toml'}, line 2" in result.stderr
    assert "Traceback" not in result.stderr and "please report" not in result.stderr


def test_path_lists_every_file_under_the_home(home: Path) -> None:
    data = json.loads(run("config", "path", "--json", home=home).stdout)
    assert data["home"] == str(home)
    assert data["policy"] == str(home / "capabilities" / "policy.json")
    assert data["audit"] == str(home / "audit" / "capabilities.jsonl")


def test_one_path_prints_bare_for_scripts(home: Path) -> None:
    assert run("config", "path", "api_token", home=home).stdout == f"{home / 'api-token'}\n"
    data = json.loads(run("config", "path", "home", "--json", home=home).stdout)
    assert data == {"home": str(home)}
    unknown = run("config", "path", "tokens", home=home)
    assert unknown.code == 2 and "api_token" in unknown.stderr


def test_the_readme_s_token_line_works_without_spyglass_home(tmp_path: Path) -> None:
    # SPYGLASS_HOME unset (the default): the home is the platform's data directory.
    environ = {k: v for k, v in os.environ.items() if not k.startswith("SPYGLASS_")}
    environ["XDG_DATA_HOME"] = str(tmp_path)
    (tmp_path / "spyglass").mkdir()
    (tmp_path / "spyglass" / "api-token").write_text("tok-123\n")
    line = f'TOKEN=$(cat "$({SPYGLASS} config path api_token)") && echo "$TOKEN"'
    done = subprocess.run(
        ["sh", "-c", line], capture_output=True, text=True, env=environ, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "tok-123\n"


def test_init_writes_a_template_that_loads_and_refuses_to_overwrite(home: Path) -> None:
    assert run("config", "init", home=home).code == 0
    assert "[fetch]" in (home / "config.toml").read_text()
    assert run("config", "show", home=home).code == 0
    again = run("config", "init", home=home)
    assert again.code == 1 and "--force" in again.stderr
    assert run("config", "init", "--force", home=home).code == 0


def test_show_reports_a_provider_without_its_key_without_failing(home: Path) -> None:
    (home / "config.toml").write_text(
        '[search]\nproviders = "searxng"\n[fetch]\nproviders = "tavily"\n'
    )
    shown = run("config", "show", "--json", home=home)
    assert shown.code == 0
    assert json.loads(shown.stdout)["search"]["providers"] == "searxng"
    assert "search.searxng.base_url" in shown.stderr
    assert "fetch.tavily.api_key" in shown.stderr
    assert "Traceback" not in shown.stderr


def test_an_unknown_key_is_named_by_show_which_still_shows_the_rest(home: Path) -> None:
    (home / "config.toml").write_text("[fetch]\nmax_chars = 1234\nmax_charz = 5\n")
    refused = run("search", "otters", home=home)
    assert refused.code == 2
    assert "fetch.max_charz is not a setting" in refused.stderr
    assert "spyglass config show" in refused.stderr
    shown = run("config", "show", home=home)
    assert shown.code == 0, shown.stderr
    assert "fetch.max_charz is not a setting" in shown.stderr
    assert "max_chars = 1234" in shown.stdout
    assert "max_charz" not in shown.stdout
    as_json = run("config", "show", "--json", home=home)
    assert json.loads(as_json.stdout)["fetch"]["max_chars"] == 1234


def test_a_bad_value_is_still_refused_by_show(home: Path) -> None:
    (home / "config.toml").write_text("[fetch]\nmax_chars = 'many'\nmax_charz = 5\n")
    result = run("config", "show", home=home)
    assert result.code == 2
    assert "fetch.max_chars" in result.stderr and "Traceback" not in result.stderr
