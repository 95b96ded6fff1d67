"""The ``spyglass`` command line."""
# ruff: noqa: E402 (httpx's command-line tool is marked absent before the imports below)

from __future__ import annotations

import logging
import sys

# ``import httpx`` also imports httpx's own command-line tool (``httpx._main``: click, rich
# and pygments, about a tenth of a second) whenever those happen to be installed; httpx falls
# back to a stub when that import fails. This command line never runs httpx's, and the fetch
# guard imports httpx to parse the URL of a call it may refuse before anyone is asked, so the
# tool's module is marked absent before anything here imports httpx (docs/benchmarks.md,
# start-up). Only the command line does this: a program that imports the ``spyglass`` package
# keeps httpx as it is, and a process that imported httpx first keeps its tool.
sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]

import typer

from spyglass.cli import audit, config, db, mcp, policy, search, serve, users
from spyglass.cli import fetch as fetch_command
from spyglass.cli.argv import undecodable
from spyglass.cli.capabilities import capabilities, invoke
from spyglass.cli.output import EXIT_FAILED, EXIT_USAGE, fail
from spyglass.errors import ConfigError, SpyglassError
from spyglass.version import __version__

app = typer.Typer(
    # Plain help: typer's rich formatter costs more start-up time than the command itself.
    rich_markup_mode=None,
    name="spyglass",
    help="Let a local AI assistant search and read the web, with your approval for every call.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"spyglass {__version__}")
        raise typer.Exit(0)


@app.callback()
def _main(
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Log more detail to stderr."),
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    logging.basicConfig(
        level=logging.DEBUG if verbose else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )


app.command("capabilities")(capabilities)
app.command("invoke")(invoke)
app.command("fetch")(fetch_command.fetch)
app.command("search")(search.search)
app.command("serve")(serve.serve)
app.add_typer(policy.app, name="policy")
app.add_typer(audit.app, name="audit")
app.add_typer(config.app, name="config")
app.add_typer(mcp.app, name="mcp")
app.add_typer(db.app, name="db")
app.add_typer(users.app, name="users")


def main() -> None:
    """Console-script entry point: no exception reaches the person as a traceback."""
    problem = undecodable(sys.argv[1:])
    if problem is not None:
        _exit_with(problem, EXIT_USAGE, "arguments must be text: a search query, a URL, a name")
    try:
        app()
    except ConfigError as exc:
        _exit_with(str(exc), EXIT_USAGE, "`spyglass config path` shows which files are read")
    except SpyglassError as exc:
        _exit_with(str(exc), EXIT_FAILED, None)
    except Exception as exc:  # a bug: say so plainly, keep the traceback for -v
        logging.getLogger("spyglass").debug("unexpected error", exc_info=True)
        _exit_with(
            f"unexpected {type(exc).__name__}: {exc}",
            EXIT_FAILED,
            "run again with -v for the details, and please report it",
        )


def _exit_with(message: str, code: int, hint: str | None) -> None:
    try:
        fail(message, code, hint=hint)
    except typer.Exit as done:
        sys.exit(done.exit_code)
