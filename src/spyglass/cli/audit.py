"""``spyglass audit``: read the audit log (which never holds queries, URLs or content)."""

from __future__ import annotations

import typer

from spyglass.cli.invoke import load_runtime
from spyglass.cli.output import JSON_OPTION, print_json, stdout

app = typer.Typer(
    help="Read the audit log of capability calls.", no_args_is_help=True, rich_markup_mode=None
)

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
)


@app.command()
def tail(
    count: int = typer.Option(
        20, "-n", "--lines", min=1, max=100000, help="How many of the newest events."
    ),
    json_output: bool = JSON_OPTION,
) -> None:
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
