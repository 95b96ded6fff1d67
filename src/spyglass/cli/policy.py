"""``spyglass policy``: show and flip the owner's switches, and choose how often calls ask.

``enable``/``disable`` alone flip the master web-access switch; ``enable search`` or
``disable fetch`` flip one capability's own switch under it. ``approvals search flagged``
lets clean searches in Spyglass's own conversations run without a card.
"""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING

import click

from spyglass.cli.commands import summary
from spyglass.cli.invoke import load_runtime
from spyglass.cli.output import json_option, print_json, stdout
from spyglass.core.flagged import household
from spyglass.core.policy import (
    APPROVAL_KEYS,
    WEB_ACCESS,
    WEB_FETCH,
    WEB_SEARCH,
    PolicyProblem,
    policy_problem,
)

if TYPE_CHECKING:
    from spyglass.runtime import Runtime


@click.group("policy", help=summary("policy"), no_args_is_help=True)
def policy() -> None:
    pass


class Switch(StrEnum):
    """A capability's own switch, named as people say it."""

    search = "search"
    fetch = "fetch"


KEYS = {Switch.search: WEB_SEARCH, Switch.fetch: WEB_FETCH}
LABELS = {WEB_ACCESS: "web access", WEB_SEARCH: "  search", WEB_FETCH: "  fetch (read pages)"}


def _switch(ctx: click.Context, param: click.Parameter, value: str | None) -> Switch | None:
    return None if value is None else Switch(value)


#: The optional SWITCH argument of ``enable`` and ``disable``.
switch_argument = click.argument(
    "switch",
    required=False,
    type=click.Choice([switch.value for switch in Switch]),
    callback=_switch,
    help="search or fetch to change only that capability's switch; leave out for web access.",
)


#: How each approval mode reads to a person.
MODE_LABELS = {
    "each": "every call waits for your approval",
    "flagged": "only a call a check flags waits (console and HTTP API conversations)",
}


def _modes(runtime: Runtime) -> dict[str, str]:
    return household(runtime.policy.approvals(), runtime.settings)


def _show(
    values: dict[str, bool],
    path: str,
    json_output: bool,
    note: str | None = None,
    problem: PolicyProblem | None = None,
    modes: dict[str, str] | None = None,
) -> None:
    shown_modes = {f"approvals_{key}": mode for key, mode in (modes or {}).items()}
    if json_output:
        print_json(
            {
                **values,
                **shown_modes,
                "path": path,
                "problem": problem.to_dict() if problem else None,
            }
        )
        return
    console = stdout()
    if problem is not None:
        # Not "off" like a switch: the file itself must be fixed (or rewritten).
        console.print(f"web access: [bold red]off — {problem.code}[/]")
        console.print(problem.message, markup=False, soft_wrap=True)
    master = values[WEB_ACCESS]
    for key, label in LABELS.items():
        if problem is not None and key == WEB_ACCESS:
            continue
        on = values.get(key, False)
        state = "[bold green]on[/]" if on else "[bold]off[/]"
        if key != WEB_ACCESS and on and not master:
            state += " [dim](inactive while web access is off)[/]"
        console.print(f"{label}: {state}")
    for key, mode in (modes or {}).items():
        console.print(f"approvals {key}: [bold]{mode}[/] [dim]({MODE_LABELS[mode]})[/]")
    console.print(f"[dim]policy file: {path}[/]", highlight=False)
    if note:
        console.print(note)


@policy.command()
@json_option
def show(json_output: bool) -> None:
    """Show the switches: web access, and search and fetch under it (and why all are off,
    when the policy file cannot be read)."""
    runtime = load_runtime()
    problem = policy_problem(runtime.policy)
    _show(
        runtime.policy.read(),
        str(runtime.paths.policy_file),
        json_output,
        problem=problem,
        modes=_modes(runtime),
    )


# `status` is what people try first; both names do the same.
policy.add_command(
    click.Command("status", callback=show.callback, params=show.params, help="Same as `show`.")
)


@policy.command()
@switch_argument
@json_option
def enable(switch: Switch | None, json_output: bool) -> None:
    """Turn web access on (or, with search|fetch, that capability under it)."""
    runtime = load_runtime()
    if switch is None:
        values = runtime.policy.set(WEB_ACCESS, True)
        off = [s.value for s, key in KEYS.items() if not values[key]]
        modes = _modes(runtime)
        if all(mode == "each" for mode in modes.values()):
            how = "each one only after you approve its exact query or URL"
        else:
            how = (
                "each one after you approve its exact query or URL, except where "
                "`spyglass policy approvals` lets calls nothing flags run without asking"
            )
        note = (
            f"Web access is on. Searches and fetches will leave this machine, {how}. "
            "Turn it off with `spyglass policy disable`."
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
        elif _modes(runtime)[switch.value] == "each":
            note += " Each call still waits for your approval of its exact query or URL."
        else:
            note += " Calls nothing flags run without asking (`spyglass policy approvals`)."
    _show(values, str(runtime.paths.policy_file), json_output, note, modes=_modes(runtime))


@policy.command()
@switch_argument
@json_option
def disable(switch: Switch | None, json_output: bool) -> None:
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
    _show(values, str(runtime.paths.policy_file), json_output, note, modes=_modes(runtime))


@policy.command()
@click.argument("capability", required=False, type=click.Choice(list(APPROVAL_KEYS)))
@click.argument("mode", required=False, type=click.Choice(["each", "flagged", "default"]))
@json_option
def approvals(capability: str | None, mode: str | None, json_output: bool) -> None:
    """Show or choose how often search and fetch ask: each (every call waits for your
    approval) or flagged (in the console and HTTP API conversations, only a call a check
    flags waits; MCP, Open WebUI and the command line keep asking as before). default
    follows the approvals.<capability> setting again."""
    runtime = load_runtime()
    if capability is not None and mode is None:
        raise click.UsageError(
            f"say how often {capability} should ask: "
            f"`spyglass policy approvals {capability} each|flagged|default`"
        )
    note = None
    if capability is not None and mode is not None:
        runtime.policy.set_approval(capability, None if mode == "default" else mode)
        chosen = _modes(runtime)[capability]
        note = f"{capability.capitalize()}: {MODE_LABELS[chosen]}."
        if chosen == "flagged":
            note += (
                " Each call that runs without asking is shown as it runs, on the receipt and "
                "in the audit log (confirmed_by flagged); docs/privacy.md says what flagged "
                "guarantees and what it does not."
            )
    modes = _modes(runtime)
    if json_output:
        print_json({f"approvals_{key}": value for key, value in modes.items()})
        return
    console = stdout()
    for key, value in modes.items():
        console.print(f"approvals {key}: [bold]{value}[/] [dim]({MODE_LABELS[value]})[/]")
    if note:
        console.print(note)
