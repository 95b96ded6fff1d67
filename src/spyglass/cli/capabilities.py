"""``spyglass capabilities``: what Spyglass can do, with bounds and schemas."""

from __future__ import annotations

import json
from typing import Any

import click

from spyglass import jsontext
from spyglass.cli.commands import summary
from spyglass.cli.invoke import load_runtime, run_capability
from spyglass.cli.output import EXIT_USAGE, fail, json_option, print_json, stdout


@click.command("capabilities", help=summary("capabilities"))
@json_option
@click.option(
    "--schemas/--no-schemas",
    default=True,
    help="Also print each capability's argument and result schema.",
)
def capabilities(json_output: bool, schemas: bool) -> None:
    runtime = load_runtime()
    described = [c.describe() for c in runtime.registry]
    if json_output:
        print_json(described)
        return
    console = stdout()
    from rich.table import Table  # only the commands that print a table load it

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
                _syntax(json.dumps(item[label], indent=2), "json", background_color="default")
            )


@click.command("invoke", help=summary("invoke"))
@click.argument("name", help="Capability name, e.g. system.health or web.search.")
@click.argument("arguments", default="{}", help="Arguments as a JSON object.")
@click.option("--version", type=int, help="Exact version (default: newest).")
@click.option("--yes", "-y", is_flag=True, help="Approve this call you typed yourself.")
@json_option
def invoke(name: str, arguments: str, version: int | None, yes: bool, json_output: bool) -> None:
    try:
        parsed = jsontext.loads(arguments)
    except json.JSONDecodeError as exc:
        fail(
            f"ARGUMENTS is not valid JSON: {exc.msg} at character {exc.pos}",
            EXIT_USAGE,
            hint='write it as a JSON object, e.g. \'{"query": "llama.cpp release notes"}\'',
        )
    run_capability(name, parsed, json_output=json_output, yes=yes, version=version)


def _syntax(code: str, lexer: str, **options: Any) -> Any:
    # Pygments is imported only when a schema is printed, not with every command.
    from rich.syntax import Syntax

    return Syntax(code, lexer, **options)
