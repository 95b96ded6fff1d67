"""``spyglass policy``: show and flip the owner's web-access switch."""

from __future__ import annotations

import typer

from spyglass.cli.invoke import load_runtime
from spyglass.cli.output import JSON_OPTION, print_json, stdout
from spyglass.core.policy import WEB_ACCESS, PolicyProblem, policy_problem

app = typer.Typer(
    help="Show or change the owner's switches (web access is off until enabled).",
    no_args_is_help=True,
)


def _show(
    values: dict[str, bool],
    path: str,
    json_output: bool,
    note: str | None = None,
    problem: PolicyProblem | None = None,
) -> None:
    if json_output:
        print_json({**values, "path": path, "problem": problem.to_dict() if problem else None})
        return
    console = stdout()
    if problem is not None:
        console.print(f"web access: [bold red]off — {problem.code}[/]")
        console.print(problem.message, markup=False, soft_wrap=True)
    else:
        state = "[bold green]on[/]" if values[WEB_ACCESS] else "[bold]off[/]"
        console.print(f"web access: {state}")
    console.print(f"[dim]policy file: {path}[/]", highlight=False)
    if note:
        console.print(note)


@app.command()
def show(json_output: bool = JSON_OPTION) -> None:
    """Show whether web access is on (and why not, when the policy file is unreadable)."""
    runtime = load_runtime()
    problem = policy_problem(runtime.policy)
    _show(runtime.policy.read(), str(runtime.paths.policy_file), json_output, problem=problem)


# `status` is what people try first; both names do the same.
app.command("status", help="Same as `show`.")(show)


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
