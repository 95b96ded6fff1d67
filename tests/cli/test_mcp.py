"""``spyglass mcp config``: a snippet each host can parse, launching this very Spyglass."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from tests.cli.support import SPYGLASS, run


@pytest.mark.parametrize("client", ["claude", "lmstudio", "cursor"])
def test_config_for_stdio_hosts_is_mcpservers_json_launching_this_spyglass(
    home: Path, client: str
) -> None:
    result = run("mcp", "config", "--client", client, home=home)
    assert result.code == 0, result.stderr
    entry = json.loads(result.stdout)["mcpServers"]["spyglass"]
    assert entry["command"] == SPYGLASS
    assert Path(entry["command"]).is_absolute()
    assert entry["args"] == ["mcp"]
    # The host's server must use the same state as the person's own commands.
    assert entry["env"] == {"SPYGLASS_HOME": str(home)}
    assert "mcpServers" in result.stderr  # where to paste it goes to stderr, not the snippet


def test_config_defaults_to_claude_desktop(home: Path) -> None:
    result = run("mcp", "config", home=home)
    assert result.code == 0
    assert "spyglass" in json.loads(result.stdout)["mcpServers"]
    assert "Claude Desktop" in result.stderr


def test_config_for_codex_is_toml(home: Path) -> None:
    result = run("mcp", "config", "--client", "codex", home=home)
    assert result.code == 0
    entry = tomllib.loads(result.stdout)["mcp_servers"]["spyglass"]
    assert entry["command"] == SPYGLASS
    assert entry["args"] == ["mcp"]


def test_config_for_open_webui_is_a_streamable_http_connection(home: Path) -> None:
    result = run("mcp", "config", "--client", "openwebui", "--port", "9123", home=home)
    assert result.code == 0
    (connection,) = json.loads(result.stdout)
    assert connection["type"] == "mcp"
    assert connection["url"] == "http://127.0.0.1:9123/mcp"
    assert connection["info"]["id"] == "spyglass"
    assert "spyglass mcp --http" in result.stderr
    # The server refuses a request without a token: the connection sends one, as a bearer.
    assert connection["auth_type"] == "bearer"
    assert connection["key"] in result.stderr and "spyglass users api-token" in result.stderr


def test_serving_http_with_a_token_file_is_a_usage_error_pointing_at_the_header(
    home: Path, tmp_path: Path
) -> None:
    token_file = tmp_path / "token"
    token_file.write_text("a-token\n")
    result = run("mcp", "--http", "--token-file", str(token_file), home=home)
    assert result.code == 2
    assert "Authorization: Bearer" in result.stderr


def test_delegated_config_states_it_in_the_server_environment(home: Path) -> None:
    result = run("mcp", "config", "--client", "lmstudio", "--delegated", home=home)
    env = json.loads(result.stdout)["mcpServers"]["spyglass"]["env"]
    assert env["SPYGLASS_CHANNELS__MCP__CONFIRMATION"] == "delegated"


def test_config_carries_the_shell_s_search_settings_and_names_the_keys_it_leaves_out(
    home: Path,
) -> None:
    shell = {
        "SPYGLASS_SEARCH__PROVIDERS": "brave",
        "SPYGLASS_SEARCH__BRAVE__API_KEY": "sk-brave-secret",
    }
    result = run("mcp", "config", "--client", "claude", home=home, env=shell)
    assert result.code == 0
    env = json.loads(result.stdout)["mcpServers"]["spyglass"]["env"]
    assert env == {"SPYGLASS_HOME": str(home), "SPYGLASS_SEARCH__PROVIDERS": "brave"}
    assert "sk-brave-secret" not in result.stdout + result.stderr
    assert "SPYGLASS_SEARCH__BRAVE__API_KEY holds a secret" in result.stderr
    assert "search.brave.api_key in config.toml" in result.stderr


def test_delegated_is_not_offered_for_codex_which_runs_read_only_tools_unasked(
    home: Path,
) -> None:
    refused = run("mcp", "config", "--client", "codex", "--delegated", home=home)
    assert refused.code == 2 and refused.stdout == ""
    assert "readOnlyHint" in refused.stderr and "nobody would approve" in refused.stderr
    # The plain snippet says why, as a comment Codex's TOML reader skips.
    plain = run("mcp", "config", "--client", "codex", home=home)
    assert plain.stdout.startswith("# Codex runs tools marked readOnlyHint without asking")
    assert "CONFIRMATION" not in plain.stdout


def test_an_unknown_client_is_a_usage_error_listing_the_choices(home: Path) -> None:
    result = run("mcp", "config", "--client", "vscode", home=home)
    assert result.code == 2
    assert "claude" in result.stderr and "openwebui" in result.stderr
    assert result.stdout == ""


def test_serving_with_a_broken_config_exits_with_the_reason_and_a_clean_stdout(
    home: Path,
) -> None:
    (home / "config.toml").write_text('[channels.mcp]\nconfirmation = "sometimes"\n')
    result = run("mcp", home=home)
    assert result.code == 2
    assert "channels.mcp.confirmation" in result.stderr
    assert result.stdout == ""
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("content", [None, b"\xff\xfe not text"])
def test_serving_mcp_with_a_token_file_missing_or_not_text_is_a_usage_error_like_a_bad_token(
    home: Path, tmp_path: Path, content: bytes | None
) -> None:
    token_file = tmp_path / "token"
    if content is not None:
        token_file.write_bytes(content)
    result = run("mcp", "--token-file", str(token_file), home=home)
    assert result.code == 2, result.stderr
    assert str(token_file) in result.stderr
    assert result.stdout == "" and "Traceback" not in result.stderr


def test_serving_mcp_with_a_token_that_signs_nobody_in_refuses_to_start(
    home: Path, tmp_path: Path
) -> None:
    token_file = tmp_path / "token"
    token_file.write_text("not-a-token\n")
    result = run("mcp", "--token-file", str(token_file), home=home)
    assert result.code == 2
    assert "signs nobody in" in result.stderr and "spyglass users api-token" in result.stderr
    assert "not-a-token" not in result.stderr


def test_serving_mcp_reports_a_reader_without_its_key_on_stderr_at_start(home: Path) -> None:
    # The host closes standard input at once: the server starts, says what is wrong with the
    # settings where the owner looks (stderr; stdout is the protocol), and ends cleanly.
    (home / "config.toml").write_text('[fetch]\nproviders = "firecrawl"\n')
    result = run("mcp", home=home)
    assert result.code == 0, result.stderr
    assert "configuration problem" in result.stderr
    assert "fetch.firecrawl.api_key" in result.stderr
    assert result.stdout == ""
