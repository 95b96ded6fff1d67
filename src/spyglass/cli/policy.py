"""``spyglass policy``: show and flip the owner's web-access switch."""

from __future__ import annotations

import typer

from spyglass.cli.invoke import load_runtime
from spyglass.cli.output import JSON_OPTION, print_json, stdout
from spyglass.core.policy import WEB_ACCESS

app = typer.Typer(
    # Plain help: typer's rich formatter costs more start-up time than the command itself.
    rich_markup_mode=None,
    help="Show or change the owner's switches (web access is off until enabled).",
    no_args_is_help=True,
)


def _show(values: dict[str, bool], path: str, json_output: bool, note: str | None = None) -> None:
    if json_output:
        print_json({**values, "path": path})
        return
    console = stdout()
    state = "[bold green]on[/]" if values[WEB_ACCESS] else "[bold]off[/]"
    console.print(f"web access: {state}")
    console.print(f"[dim]policy file: {path}[/]")
    if note:
        console.print(note)


@app.command()
def show(json_output: bool = JSON_OPTION) -> None:
    """Show whether web access is on."""
    runtime = load_runtime()
    _show(runtime.policy.read(), str(runtime.paths.policy_file), json_output)


@app.command()
def enable(json_output: bool = JSON_OPTION) -> None:
    """Turn web access on: searches and fetches may leave this machine, each after approval."""
    runtime = load_runtime()
    values = runtime.policy.set(WEB_ACCESS, True)
    _show(
        values,
        str(runtime.paths.policy_file),
        json_output,
        "Web access is on. Searches and fetches will leave this machine, each one only "
        "after you approve its exact query or URL. Turn it off with "
        "`spyglass policy disable`.",
    )


@app.command()
def disable(json_output: bool = JSON_OPTION) -> None:
    """Turn web access off: nothing is searched or fetched until it is enabled again."""
    runtime = load_runtime()
    values = runtime.policy.set(WEB_ACCESS, False)
    _show(
        values,
        str(runtime.paths.policy_file),
        json_output,
        "Web access is off. The model is not offered web tools and every web call is refused.",
    )
