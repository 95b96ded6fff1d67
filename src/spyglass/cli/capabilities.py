"""``spyglass capabilities``: what Spyglass can do, with bounds and schemas."""

from __future__ import annotations

import json

import typer
from rich.syntax import Syntax
from rich.table import Table

from spyglass.cli.invoke import load_runtime
from spyglass.cli.output import JSON_OPTION, print_json, stdout


def capabilities(
    json_output: bool = JSON_OPTION,
    schemas: bool = typer.Option(
        True,
        "--schemas/--no-schemas",
        help="Also print each capability's argument and result schema.",
    ),
) -> None:
    """List every capability: names, classification, confirmation, bounds and schemas."""
    runtime = load_runtime()
    described = [c.describe() for c in runtime.registry]
    if json_output:
        print_json(described)
        return
    console = stdout()
    table = Table(
        "name",
        "wire name",
        "version",
        "side effect",
        "network",
        "confirmation",
        "timeout",
        "max bytes",
        "per turn",
        box=None,
        header_style="bold",
    )
    for item in described:
        bounds = item["bounds"]
        table.add_row(
            item["name"],
            item["wire_name"],
            str(item["version"]),
            item["side_effect"],
            item["network"],
            item["confirmation"],
            f"{bounds['timeout_seconds']:g}s",
            str(bounds["max_result_bytes"]),
            str(bounds["max_invocations_per_turn"]),
        )
    console.print(table)
    if not schemas:
        return
    for item in described:
        console.print(f"\n[bold]{item['name']}[/] v{item['version']}: {item['description']}")
        for label in ("argument_schema", "result_schema"):
            console.print(f"[dim]{label}[/]")
            console.print(
                Syntax(json.dumps(item[label], indent=2), "json", background_color="default")
            )
