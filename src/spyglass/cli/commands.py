"""The table of ``spyglass`` subcommands, and the group that imports each one when it runs.

A command's module is imported by the command that uses it and by nothing else: ``spyglass
fetch`` never loads the code of ``users``, ``audit``, ``serve`` or ``mcp``. ``--help`` lists
every command from this table, so it imports none of them; each module takes its summary
from here too, so the one line people see in the list is written once.
"""

from __future__ import annotations

import importlib
from typing import NamedTuple

import click


class Entry(NamedTuple):
    """Where a subcommand lives, and the line ``spyglass --help`` shows for it."""

    module: str
    attribute: str
    summary: str


#: Every subcommand of ``spyglass``, in the order ``spyglass --help`` lists them.
COMMANDS: dict[str, Entry] = {
    "capabilities": Entry(
        "spyglass.cli.capabilities",
        "capabilities",
        "List every capability: names, classification, confirmation, bounds and schemas.",
    ),
    "invoke": Entry(
        "spyglass.cli.capabilities",
        "invoke",
        "Call any capability with JSON arguments, through the same checks as every front end.",
    ),
    "fetch": Entry(
        "spyglass.cli.fetch",
        "fetch",
        "Read one public web page and print its main content as Markdown.",
    ),
    "search": Entry(
        "spyglass.cli.search",
        "search",
        "Search the web (needs web access on; asks before anything leaves this machine).",
    ),
    "serve": Entry(
        "spyglass.cli.serve",
        "serve",
        "Run the Spyglass service: HTTP API, console and Open WebUI endpoints.",
    ),
    "policy": Entry(
        "spyglass.cli.policy",
        "policy",
        "Show or change the owner's switches: web access (off until enabled), and under it "
        "search and fetch, each on unless switched off; and how often each asks (approvals).",
    ),
    "audit": Entry(
        "spyglass.cli.audit",
        "audit",
        "Read the audit log of capability calls, and the receipts of answers.",
    ),
    "config": Entry(
        "spyglass.cli.config",
        "config",
        "Show the effective settings and where they live.",
    ),
    "mcp": Entry(
        "spyglass.cli.mcp",
        "mcp",
        "Serve web_search and web_fetch to MCP hosts (stdio unless --http).",
    ),
    "models": Entry(
        "spyglass.cli.models",
        "models",
        "List the model servers and models found on this machine, and the one in use.",
    ),
    "doctor": Entry(
        "spyglass.cli.doctor",
        "doctor",
        "Check the whole set-up (model, tools, search, browser, stores, folders) and say "
        "what to fix.",
    ),
    "db": Entry("spyglass.cli.db", "db", "Manage the state stores' schemas."),
    "users": Entry(
        "spyglass.cli.users",
        "users",
        "The people who use this Spyglass: add them with a role (owner, member, child, "
        "guest), change what they may do, give them a console link or an API token.",
    ),
}


def summary(name: str) -> str:
    """The help line of the subcommand ``name``, as ``spyglass --help`` lists it."""
    return COMMANDS[name].summary


class LazyGroup(click.Group):
    """A group whose subcommands are named in :data:`COMMANDS` and imported on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [*COMMANDS, *(name for name in self.commands if name not in COMMANDS)]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        entry = COMMANDS.get(cmd_name)
        if entry is None:
            return super().get_command(ctx, cmd_name)
        command = getattr(importlib.import_module(entry.module), entry.attribute)
        if not isinstance(command, click.Command):
            raise TypeError(f"{entry.module}.{entry.attribute} is not a click command")
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # The summaries come from the table: listing the commands imports none of them.
        limit = formatter.width - 6 - max(len(name) for name in COMMANDS)
        rows = [
            (name, click.Command(name, help=entry.summary).get_short_help_str(limit))
            for name, entry in COMMANDS.items()
        ]
        with formatter.section("Commands"):
            formatter.write_dl(rows)
