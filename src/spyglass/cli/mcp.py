"""``spyglass mcp``: serve web search and fetch to MCP hosts, and print their configuration."""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from spyglass.cli.commands import summary
from spyglass.cli.invoke import load_runtime
from spyglass.cli.output import EXIT_FAILED, EXIT_USAGE, fail, stderr
from spyglass.errors import StorageError, StoreUnavailable
from spyglass.mcp.addresses import DEFAULT_HTTP_PORT
from spyglass.mcp.clients import DELEGATED_ENV, DelegationRefused, Host, snippet

if TYPE_CHECKING:
    from spyglass.mcp.callers import Callers
    from spyglass.runtime import Runtime


@click.group("mcp", help=summary("mcp"), invoke_without_command=True)
@click.option("--http", is_flag=True, help="Serve Streamable HTTP on 127.0.0.1 instead of stdio.")
@click.option(
    "--port",
    type=click.IntRange(min=0, max=65535),
    default=DEFAULT_HTTP_PORT,
    help="Port for --http (0: any free).",
)
@click.option(
    "--token-file",
    type=click.Path(path_type=Path),
    envvar="SPYGLASS_MCP_TOKEN_FILE",
    show_envvar=True,
    help="A file holding a person's API token (`spyglass users api-token NAME`): calls are "
    "then theirs, under their permissions. Without it, calls are the owner's.",
)
@click.pass_context
def mcp(ctx: click.Context, http: bool, port: int, token_file: Path | None) -> None:
    """Serve MCP over stdio (for hosts that launch Spyglass) or Streamable HTTP."""
    if ctx.invoked_subcommand is not None:
        return
    # The MCP SDK takes a good part of a second to import: only the serving path pays for it.
    import anyio

    from spyglass.mcp.transport import bind_loopback, serve_http, serve_stdio

    if http and token_file is not None:
        fail(
            "--token-file is for stdio: over --http each host sends its own token",
            EXIT_USAGE,
            hint="put the token in the host's connection as an Authorization: Bearer header "
            "(see `spyglass mcp config`)",
        )
    runtime = load_runtime()
    # Said at start (on stderr: stdout is the protocol); such a capability is not listed.
    runtime.report_problems()
    from spyglass.mcp.callers import local_owner

    callers = _token_holder(runtime, token_file) if token_file is not None else local_owner
    if not http:
        # stdout is the protocol stream from here on: nothing else may be printed to it.
        stopped = False
        with contextlib.suppress(KeyboardInterrupt):
            stopped = anyio.run(serve_stdio, runtime, callers)
        if stopped:
            # Ctrl-C with the host still connected: a thread is blocked reading stdin, and
            # the interpreter would wait for it until the host closes the stream. Everything
            # is written (approvals ended, audit flushed): leave now.
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(0)
        return
    # A long-running HTTP server pays for the capabilities' implementations at start; over
    # stdio the host is waiting for its first answer, so they load with the first call.
    from spyglass.capabilities import preload

    preload()
    try:
        # Credentials are checked on every request: the account tables must be there.
        runtime.stores.upgrade()
    except (StoreUnavailable, StorageError) as exc:
        fail(str(exc), EXIT_FAILED)
    try:
        sock = bind_loopback(port)
    except OSError as exc:
        fail(
            f"cannot listen on 127.0.0.1:{port} ({exc.strerror or exc})",
            EXIT_FAILED,
            hint="choose another port with --port, or stop what is using this one",
        )

    def ready(url: str) -> None:
        console = stderr()
        console.print(f"Spyglass MCP server (Streamable HTTP) at [bold]{url}[/]")
        console.print("[dim]Loopback only. Ctrl-C stops it.[/]")

    try:
        with contextlib.suppress(KeyboardInterrupt):
            anyio.run(lambda: serve_http(runtime, sock, ready=ready))
    finally:
        sock.close()


@mcp.command("config")
@click.option(
    "--client",
    type=click.Choice([host.value for host in Host]),
    default=Host.CLAUDE.value,
    help="Which MCP host to configure.",
)
@click.option(
    "--port",
    type=click.IntRange(min=1, max=65535),
    default=DEFAULT_HTTP_PORT,
    help="Port of `spyglass mcp --http`.",
)
@click.option(
    "--delegated",
    is_flag=True,
    help="State that the host asks you before every tool call, so Spyglass does not ask "
    "again (sets channels.mcp.confirmation=delegated for this server). Not offered for hosts "
    "that run read-only tools without asking (codex).",
)
def config(client: str, port: int, delegated: bool) -> None:
    """Print a ready-to-paste configuration snippet for an MCP host."""
    host = Host(client)
    try:
        result = snippet(host, port=port, delegated=delegated)
    except DelegationRefused as refused:
        fail(
            str(refused),
            EXIT_USAGE,
            hint=f"run `spyglass mcp config --client {client}` without --delegated",
        )
    # The snippet alone goes to stdout so it can be piped into a file; guidance goes to stderr.
    click.echo(result.text.rstrip("\n"))
    console = stderr()
    console.print(f"[dim]{result.where}[/]", highlight=False)
    from rich.text import Text

    for note in result.left_out:
        console.print(Text.assemble(("note: ", "yellow"), note), highlight=False)
    if host is Host.OPENWEBUI and delegated:
        console.print(
            f"[dim]Start the server with {DELEGATED_ENV}=delegated spyglass mcp --http "
            f"--port {port}[/]",
            highlight=False,
        )


def _token_holder(runtime: Runtime, token_file: Path) -> Callers:
    """Whose calls are the person's whose API token ``token_file`` holds, looked up again on
    every call (:class:`~spyglass.mcp.callers.TokenHolder`); a plain refusal to start when it
    signs nobody in now."""
    import asyncio

    from spyglass.mcp.callers import NEW_TOKEN, SignedOut, TokenHolder

    # A token file that is missing, unreadable or not a token is the same mistake as a token
    # that signs nobody in: what was given on the command line (exit 2, usage).
    hint = NEW_TOKEN
    try:
        token = token_file.read_text(encoding="utf-8").strip()
    except OSError as exc:
        fail(f"cannot read the token file {token_file} ({exc.strerror or exc})", EXIT_USAGE)
    except UnicodeDecodeError:
        fail(f"the token file {token_file} does not hold a token", EXIT_USAGE, hint=hint)

    holder = TokenHolder(runtime.accounts, runtime.actors, token, str(token_file))

    async def find() -> object:
        await asyncio.to_thread(runtime.stores.upgrade)
        return await holder()

    try:
        found = asyncio.run(find())
    except (StoreUnavailable, StorageError) as exc:
        fail(str(exc), EXIT_FAILED)
    if isinstance(found, SignedOut):
        fail(
            f"the token in {token_file} signs nobody in (unknown, replaced or disabled)",
            EXIT_USAGE,
            hint=hint,
        )
    return holder
