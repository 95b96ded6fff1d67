"""``spyglass audit``: read the audit log (which never holds queries, URLs or content)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

import click

from spyglass.cli.commands import summary
from spyglass.cli.invoke import load_runtime
from spyglass.cli.output import EXIT_USAGE, fail, json_option, print_json, stdout

if TYPE_CHECKING:
    from spyglass.runtime import Runtime


@click.group("audit", help=summary("audit"), no_args_is_help=True)
def audit() -> None:
    pass


COLUMNS = (
    "ts",
    "capability",
    "channel",
    "outcome",
    "code",
    "stage",
    "confirmed_by",
    "provider",
    "duration_ms",
    # The pseudonym of the person a call was made for (none for the owner's local CLI).
    "actor",
)


@audit.command()
@click.option(
    "-n",
    "--lines",
    "count",
    type=click.IntRange(min=1, max=100000),
    default=20,
    help="How many of the newest events.",
)
@json_option
def tail(count: int, json_output: bool) -> None:
    """Show the newest audit events, oldest first."""
    runtime = load_runtime()
    events = runtime.audit.tail(count)
    if json_output:
        print_json(events)
        return
    console = stdout()
    if not events:
        where = (
            "PostgreSQL" if runtime.stores.backend == "shared" else str(runtime.paths.audit_file)
        )
        console.print(f"No audit events yet ({where}).")
        return
    from rich.table import Table  # only the commands that print a table load it

    table = Table(*COLUMNS, box=None, header_style="bold")
    for event in events:
        table.add_row(*("" if event.get(c) is None else str(event.get(c)) for c in COLUMNS))
    console.print(table)


_SPAN = re.compile(r"^\s*(\d{1,6})\s*([smhdw])\s*$", re.IGNORECASE)
_UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


def parse_since(text: str) -> timedelta:
    """``90m``, ``12h``, ``1d``, ``2w`` → a time span; ``ValueError`` with the fix otherwise."""
    match = _SPAN.match(text)
    if match is None:
        raise ValueError(
            f"--since {text!r} is not a time span; write a number and a unit, e.g. 30m, 12h, "
            "1d or 2w"
        )
    return timedelta(**{_UNITS[match.group(2).lower()]: int(match.group(1))})


@audit.command()
@click.option("--since", default="1d", help="How far back: 30m, 12h, 1d, 2w.")
@json_option
def receipts(since: str, json_output: bool) -> None:
    """Show what left this device for each answer, from the conversation history.

    The audit log records that calls happened but never what they carried; receipts name the
    queries and addresses, so they are kept with the conversations they belong to.
    """
    try:
        span = parse_since(since)
    except ValueError as exc:
        fail(str(exc), EXIT_USAGE)
    import asyncio

    runtime = load_runtime()
    found = asyncio.run(_receipts(runtime, datetime.now(UTC) - span))
    if json_output:
        print_json(found)
        return
    console = stdout()
    if not runtime.settings.history.enabled:
        console.print("Conversation history is off (history.enabled = false): no receipts kept.")
        return
    if not found:
        console.print(f"No answers in the last {since.strip()}.")
        return
    from rich.text import Text  # only the commands that print styled lines load it

    for item in found:
        receipt = item["receipt"]
        summary = receipt.get("summary", "") if isinstance(receipt, dict) else ""
        left = isinstance(receipt, dict) and receipt.get("left_device")
        console.print(
            Text.assemble(
                (f"{item['created_at']}  ", "dim"),
                (f"{item['title']}\n  ", "bold"),
                (str(summary), "yellow" if left else "green"),
            )
        )


async def _receipts(runtime: Runtime, since: datetime) -> list[dict[str, Any]]:
    """Receipts since ``since`` from the history store the settings name (none when off)."""
    if not runtime.settings.history.enabled:
        return []
    if runtime.stores.backend == "embedded" and not runtime.paths.database_file.exists():
        return []  # nothing was ever kept: do not create the database to say so
    history = runtime.stores.history()
    try:
        return list(await history.receipts(since))
    finally:
        await history.close()
