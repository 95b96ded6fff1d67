"""The table of subcommands and the group that loads each one when it runs."""

from __future__ import annotations

import inspect
from pathlib import Path

import click
import pytest

from spyglass.cli import app
from spyglass.cli.commands import COMMANDS, LazyGroup
from tests.cli.support import run


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_each_table_entry_is_the_command_of_that_name_with_the_summary_help_shows(
    name: str,
) -> None:
    context = click.Context(app, info_name="spyglass")
    command = app.get_command(context, name)
    assert isinstance(command, click.Command)
    assert command.name == name
    # The line `spyglass --help` lists and the command's own help are the same words.
    assert inspect.cleandoc(command.help or "").startswith(COMMANDS[name].summary)


def test_the_group_lists_the_table_s_commands_in_its_order() -> None:
    context = click.Context(app, info_name="spyglass")
    assert isinstance(app, LazyGroup)
    assert app.list_commands(context) == list(COMMANDS)


def test_help_lists_every_command_with_the_start_of_its_summary(home: Path) -> None:
    result = run("--help", home=home)
    assert result.code == 0
    listed = result.stdout.split("Commands:", 1)[1]
    for name, entry in COMMANDS.items():
        line = next((row for row in listed.splitlines() if row.split()[:1] == [name]), None)
        assert line is not None, f"{name} is not listed"
        assert entry.summary.split()[0] in line


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_command_answers_help_with_its_summary(home: Path, name: str) -> None:
    result = run(name, "--help", home=home)
    assert result.code == 0, result.stderr
    assert f"Usage: spyglass {name}" in result.stdout
    assert " ".join(result.stdout.split()).find(COMMANDS[name].summary[:40]) > 0


def test_a_value_out_of_range_is_a_usage_error_naming_the_flag(home: Path) -> None:
    result = run("fetch", "--offset", "-1", "https://example.org/", home=home)
    assert result.code == 2
    assert "--offset" in result.stderr and "Traceback" not in result.stderr


def test_an_unknown_flag_is_a_usage_error_that_says_where_help_is(home: Path) -> None:
    result = run("search", "tides", "--colour", home=home)
    assert result.code == 2
    assert "--colour" in result.stderr
    assert "spyglass search --help" in result.stderr


def test_a_group_named_alone_shows_its_commands(home: Path) -> None:
    result = run("users", home=home)
    assert result.code == 2  # a usage error, as click (and typer before it) answers
    for command in ("add", "list", "set-role", "api-token"):
        assert command in result.stdout + result.stderr
