"""Configuration snippets: the command that starts this Spyglass, however it was started."""

from __future__ import annotations

import json
import sys
import tomllib
from pathlib import Path

import pytest

from spyglass.mcp.clients import (
    AUTO_APPROVES_READ_ONLY,
    DelegationRefused,
    Host,
    launch_command,
    server_env,
    snippet,
)


def test_a_console_script_found_on_the_path_becomes_its_absolute_path() -> None:
    command = launch_command(argv0="python3", executable=sys.executable)
    assert Path(command[0]).is_absolute()
    assert command[1:] == ["mcp"]


def test_python_dash_m_is_repeated_with_the_same_interpreter() -> None:
    command = launch_command(argv0="/x/spyglass/__main__.py", executable="/opt/py/bin/python")
    assert command == ["/opt/py/bin/python", "-m", "spyglass", "mcp"]


def test_a_relative_script_path_is_made_absolute() -> None:
    command = launch_command(argv0="bin/spyglass", executable=sys.executable)
    assert command == [str(Path("bin/spyglass").absolute()), "mcp"]


def test_the_environment_carries_the_home_and_the_delegated_statement_only_when_set() -> None:
    assert server_env(delegated=False, environ={}) == {}
    env = server_env(delegated=True, environ={"SPYGLASS_HOME": "/data/spy", "PATH": "/bin"})
    assert env == {
        "SPYGLASS_HOME": "/data/spy",
        "SPYGLASS_CHANNELS__MCP__CONFIRMATION": "delegated",
    }


def test_every_host_gets_a_snippet_in_a_format_it_parses() -> None:
    command = ["/opt/spyglass/bin/spyglass", "mcp"]
    for host in Host:
        made = snippet(host, command=command, environ={})
        data = tomllib.loads(made.text) if made.format == "toml" else json.loads(made.text)
        assert data
        assert made.where
    claude = json.loads(snippet(Host.CLAUDE, command=command, environ={}).text)
    assert claude == {
        "mcpServers": {"spyglass": {"command": "/opt/spyglass/bin/spyglass", "args": ["mcp"]}}
    }


def test_delegated_is_refused_for_every_host_that_auto_approves_read_only_tools() -> None:
    for host in AUTO_APPROVES_READ_ONLY:
        with pytest.raises(DelegationRefused, match="nobody would approve"):
            snippet(host, delegated=True, command=["spyglass", "mcp"], environ={})
    assert Host.LMSTUDIO not in AUTO_APPROVES_READ_ONLY


def test_settings_exported_in_the_shell_are_carried_and_secrets_are_named_not_written() -> None:
    shell = {
        "SPYGLASS_HOME": "/data/spy",
        "SPYGLASS_SEARCH__PROVIDERS": "searxng",
        "SPYGLASS_SEARCH__SEARXNG__BASE_URL": "http://127.0.0.1:8888",
        "SPYGLASS_SEARCH__BRAVE__API_KEY": "sk-brave-secret",
        "SPYGLASS_LLM__API_KEY": "sk-llm-secret",
        "SPYGLASS_CHANNELS__MCP__CONFIRMATION": "delegated",
        "SPYGLASS_SERACH__PROVIDERS": "typo",
        "PATH": "/bin",
    }
    made = snippet(Host.CLAUDE, command=["spyglass", "mcp"], environ=shell)
    env = json.loads(made.text)["mcpServers"]["spyglass"]["env"]
    assert env == {
        "SPYGLASS_HOME": "/data/spy",
        "SPYGLASS_SEARCH__PROVIDERS": "searxng",
        "SPYGLASS_SEARCH__SEARXNG__BASE_URL": "http://127.0.0.1:8888",
    }
    assert "secret" not in made.text
    notes = "\n".join(made.left_out)
    assert "SPYGLASS_SEARCH__BRAVE__API_KEY holds a secret" in notes
    assert "put search.brave.api_key in config.toml" in notes
    assert "put llm.api_key in config.toml" in notes
    assert "SPYGLASS_SERACH__PROVIDERS names no Spyglass setting" in notes
    assert "SPYGLASS_CHANNELS__MCP__CONFIRMATION is set in this shell but not written" in notes
    # Codex's TOML carries the same settings (and never the shell's delegated statement).
    codex = tomllib.loads(snippet(Host.CODEX, command=["spyglass", "mcp"], environ=shell).text)
    assert codex["mcp_servers"]["spyglass"]["env"] == env
