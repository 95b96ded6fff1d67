"""The ``spyglass`` command line."""

from __future__ import annotations

import logging
import os
import sys

import click

from spyglass.cli.argv import undecodable
from spyglass.cli.commands import LazyGroup
from spyglass.cli.output import EXIT_FAILED, EXIT_USAGE, fail
from spyglass.errors import ConfigError, SpyglassError
from spyglass.version import __version__

#: Every option's default is shown in --help, on every command.
CONTEXT = {"show_default": True}
#: Set to 1 to let ``-v`` log content too: queries, URLs, MCP messages, page text.
LOG_CONTENT_ENV = "SPYGLASS_LOG_CONTENT"
#: Libraries whose INFO and DEBUG records carry content (``httpx`` logs each request URL).
#: Commands that keep running: their logs are a record over time, not one command's output.
LONG_RUNNING = frozenset({"serve", "mcp"})
CONTENT_LOGGERS = ("httpx", "httpcore", "hpack", "mcp", "sse_starlette", "uvicorn.access")


def _version(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    if value:
        click.echo(f"spyglass {__version__}")
        ctx.exit(0)


@click.group(
    cls=LazyGroup,
    name="spyglass",
    help="Let a local AI assistant search and read the web, with your approval for every call.",
    no_args_is_help=True,
    context_settings=CONTEXT,
)
@click.option(
    "--verbose",
    "-v",
    is_flag=True,
    help=(
        "Log more detail to stderr: Spyglass's own steps, never queries, URLs or page text "
        f"unless {LOG_CONTENT_ENV}=1 is set too."
    ),
)
@click.option(
    "--version",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=_version,
    help="Print the version and exit.",
)
def app(verbose: bool) -> None:
    logging.basicConfig(
        level=logging.DEBUG if verbose else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    if os.environ.get(LOG_CONTENT_ENV, "") not in ("1", "true", "yes"):
        # These libraries log what passes through them at INFO and DEBUG: request URLs
        # (a search query, a page address), MCP messages (arguments, approval texts, page
        # text). Hosts keep a server's stderr, so that stays out unless asked for (docs/cli.md).
        for name in CONTENT_LOGGERS:
            logging.getLogger(name).setLevel(logging.WARNING)
    command = click.get_current_context().invoked_subcommand
    if not verbose and command not in LONG_RUNNING:
        # A command run once says a broken policy file in its own answer (a refusal, the
        # policy status); the policy's log line would say it a second time. Servers keep it:
        # their log records when the file broke.
        logging.getLogger("spyglass.core.policy").setLevel(logging.ERROR)


def main() -> None:
    """Console-script entry point: no exception reaches the person as a traceback."""
    problem = undecodable(sys.argv[1:])
    if problem is not None:
        _exit_with(problem, EXIT_USAGE, "arguments must be text: a search query, a URL, a name")
    try:
        app.main(prog_name="spyglass")
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
    except click.exceptions.Exit as done:
        sys.exit(done.exit_code)
