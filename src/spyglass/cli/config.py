"""``spyglass config``: the effective settings, where they come from, and a template."""

from __future__ import annotations

from typing import Any

import click

from spyglass.cli.commands import summary
from spyglass.cli.output import (
    EXIT_FAILED,
    EXIT_USAGE,
    fail,
    json_option,
    print_json,
    stderr,
    stdout,
)
from spyglass.errors import ConfigError
from spyglass.paths import Paths, make_private_dir


@click.group("config", help=summary("config"), no_args_is_help=True)
def config() -> None:
    pass


@config.command()
@json_option
def show(json_output: bool) -> None:
    """Print the effective settings (file, then SPYGLASS_* variables), secrets masked.

    A key that is not a setting is named on stderr and left out, so this works even while
    every other command refuses to start because of it.
    """
    from spyglass.settings import load_settings_leniently

    paths = Paths.from_env()
    try:
        settings, problems = load_settings_leniently(paths)
    except ConfigError as exc:
        fail(str(exc), EXIT_USAGE, hint=f"fix or remove it in {paths.config_file}")
    warn = stderr()
    for problem in problems:
        warn.print(f"[yellow]warning:[/] {_escape(problem)}; left out below")
    if problems:
        warn.print(
            "[dim]hint:[/] other commands refuse to start until these keys are fixed or "
            "removed; the settings they can be are listed below"
        )
    from spyglass.capabilities import BUILTIN

    for capability in BUILTIN.latest():
        for problem in capability.problems(settings):
            # Not offered until fixed; every other command keeps working.
            warn.print(f"[yellow]warning:[/] {capability.name}: {_escape(problem)}")
    data = settings.public_dict()
    if json_output:
        print_json(data)
        return
    import tomli_w

    console = stdout()
    console.print(f"[dim]# effective settings; file: {_escape(str(paths.config_file))}[/]")
    console.print(tomli_w.dumps(_drop_none(data)), markup=False)


def _drop_none(value: Any) -> Any:
    # TOML has no null: an unset optional value is left out, as it would be in the file.
    if isinstance(value, dict):
        return {k: _drop_none(v) for k, v in value.items() if v is not None}
    return value


PATH_NAMES = ("home", "config", "policy", "audit", "database", "api_token")


@config.command()
@click.argument("name", required=False, type=click.Choice(PATH_NAMES))
@json_option
def path(name: str | None, json_output: bool) -> None:
    """Print where each Spyglass file lives; with NAME, only that path (for scripts:
    `cat "$(spyglass config path api_token)"`)."""
    paths = Paths.from_env()
    files = {
        "home": paths.home,
        "config": paths.config_file,
        "policy": paths.policy_file,
        "audit": paths.audit_file,
        "database": paths.database_file,
        "api_token": paths.api_token_file,
    }
    if name is not None:
        files = {name: files[name]}
        if not json_output:
            # Bare, with no padding or wrapping, so a shell can use it as it is.
            click.echo(str(files[name]))
            return
    if json_output:
        print_json({k: str(v) for k, v in files.items()})
        return
    console = stdout()
    for key, value in files.items():
        console.print(f"{key:10} {value}", markup=False)


@config.command()
@click.option("--force", is_flag=True, help="Overwrite an existing file.")
def init(force: bool) -> None:
    """Write a commented settings template to the config file."""
    paths = Paths.from_env()
    target = paths.config_file
    if target.exists() and not force:
        fail(f"{target} already exists", EXIT_FAILED, hint="add --force to overwrite it")
    make_private_dir(target.parent)
    from spyglass.settings import TEMPLATE

    target.write_text(TEMPLATE, encoding="utf-8")
    stdout().print(f"wrote {target}", markup=False)


def _escape(text: str) -> str:
    from rich.markup import escape

    return escape(text)
