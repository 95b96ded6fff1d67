"""``spyglass policy``: show and flip the owner's switches.

``enable``/``disable`` alone flip the master web-access switch; ``enable search`` or
``disable fetch`` flip one capability's own switch under it.
"""

from __future__ import annotations

from enum import StrEnum

import typer

from spyglass.cli.invoke import load_runtime
from spyglass.cli.output import JSON_OPTION, print_json, stdout
from spyglass.core.policy import WEB_ACCESS, WEB_FETCH, WEB_SEARCH

app = typer.Typer(
    # Plain help: typer's rich formatter costs more start-up time than the command itself.
    rich_markup_mode=None,
    help=(
        "Show or change the owner's switches: web access (off until enabled), and under it "
        "search and fetch, each on unless switched off."
    ),
    no_args_is_help=True,
)


class Switch(StrEnum):
    """A capability's own switch, named as people say it."""

    search = "search"
    fetch = "fetch"


KEYS = {Switch.search: WEB_SEARCH, Switch.fetch: WEB_FETCH}
LABELS = {WEB_ACCESS: "web access", WEB_SEARCH: "  search", WEB_FETCH: "  fetch (read pages)"}

SWITCH_ARGUMENT = typer.Argument(
    None,
    help="search or fetch to change only that capability's switch; leave out for web access.",
    show_default=False,
)


def _show(values: dict[str, bool], path: str, json_output: bool, note: str | None = None) -> None:
    if json_output:
        print_json({**values, "path": path})
        return
    console = stdout()
    master = values[WEB_ACCESS]
    for key, label in LABELS.items():
        on = values.get(key, False)
        state = "[bold green]on[/]" if on else "[bold]off[/]"
        if key != WEB_ACCESS and on and not master:
            state += " [dim](inactive while web access is off)[/]"
        console.print(f"{label}: {state}")
    console.print(f"[dim]policy file: {path}[/]")
    if note:
        console.print(note)


@app.command()
def show(json_output: bool = JSON_OPTION) -> None:
    """Show the switches: web access, and search and fetch under it."""
    runtime = load_runtime()
    _show(runtime.policy.read(), str(runtime.paths.policy_file), json_output)


@app.command()
def enable(switch: Switch | None = SWITCH_ARGUMENT, json_output: bool = JSON_OPTION) -> None:
    """Turn web access on (or, with search|fetch, that capability under it)."""
    runtime = load_runtime()
    if switch is None:
        values = runtime.policy.set(WEB_ACCESS, True)
        off = [s.value for s, key in KEYS.items() if not values[key]]
        note = (
            "Web access is on. Searches and fetches will leave this machine, each one only "
            "after you approve its exact query or URL. Turn it off with "
            "`spyglass policy disable`."
        )
        if off:
            note += (
                f" Still switched off: {', '.join(off)} "
                f"(`spyglass policy enable {off[0]}` turns it on)."
            )
    else:
        values = runtime.policy.set(KEYS[switch], True)
        note = f"{switch.value.capitalize()} is switched on."
        if not values[WEB_ACCESS]:
            note += " It stays inactive until web access is on: `spyglass policy enable`."
        else:
            note += " Each call still waits for your approval of its exact query or URL."
    _show(values, str(runtime.paths.policy_file), json_output, note)


@app.command()
def disable(switch: Switch | None = SWITCH_ARGUMENT, json_output: bool = JSON_OPTION) -> None:
    """Turn web access off (or, with search|fetch, only that capability)."""
    runtime = load_runtime()
    if switch is None:
        values = runtime.policy.set(WEB_ACCESS, False)
        note = (
            "Web access is off. The model is not offered web tools and every web call is refused."
        )
    else:
        values = runtime.policy.set(KEYS[switch], False)
        note = (
            f"{switch.value.capitalize()} is switched off: the model is not offered it and "
            f"every such call is refused. `spyglass policy enable {switch.value}` turns it "
            "back on."
        )
    _show(values, str(runtime.paths.policy_file), json_output, note)
