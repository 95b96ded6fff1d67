"""The one path every CLI command takes to call a capability.

It runs the executor with channel ``cli``; when the capability needs approval it shows the
exact arguments and asks y/N on the terminal, or takes ``--yes`` for a call the person typed
themselves. ``--json`` prints the Outcome; otherwise ``render`` draws the result.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, NoReturn

import click

from spyglass.cli.output import (
    EXIT_DENIED,
    EXIT_FOR_STATUS,
    EXIT_USAGE,
    fail,
    print_json,
    report_problem,
    stderr,
    stdout,
)
from spyglass.core.outcome import Code, Outcome
from spyglass.errors import ConfigError

if TYPE_CHECKING:
    from rich.console import Console

    from spyglass.runtime import Runtime

CHANNEL = "cli"

Renderer = Callable[[Outcome, "Console"], None]


def load_runtime(overrides: Mapping[str, Any] | None = None) -> Runtime:
    # The runtime brings the settings model and the capabilities; a command that needs
    # neither (--help, `mcp config`) never imports them.
    from spyglass.runtime import build_runtime

    try:
        return build_runtime(overrides=overrides)
    except ConfigError as exc:
        fail(str(exc), EXIT_USAGE, hint="`spyglass config path` shows which files are read")


def run_capability(
    name: str,
    arguments: dict[str, Any],
    *,
    json_output: bool,
    yes: bool,
    render: Renderer | None = None,
    runtime: Runtime | None = None,
    version: int | None = None,
    flags: Mapping[str, str] | None = None,
) -> NoReturn:
    """Invoke ``name`` with ``arguments``, asking for approval if needed, then exit.

    ``flags`` names the command-line flag behind each argument, for messages to people.
    """
    runtime = runtime or load_runtime()
    executor = runtime.executor
    outcome = executor.invoke(name, version, arguments, channel=CHANNEL)
    pending = outcome.pending_confirmation
    if pending is not None:
        if not yes and not sys.stdin.isatty():
            # No person to ask: the token stays unused and expires on its own.
            if json_output:
                print_json(outcome.to_dict())
            fail(
                f"{name} needs your approval and there is no terminal to ask on",
                EXIT_DENIED,
                hint="run it in a terminal to answer the prompt, or add --yes to approve "
                "a call you typed yourself",
            )
        if yes or _ask(runtime, outcome):
            outcome = executor.invoke(
                name,
                pending.version,
                arguments,
                channel=CHANNEL,
                confirmation_token=pending.token,
            )
        else:
            outcome = executor.deny(pending.token, channel=CHANNEL)
    _finish(outcome, json_output=json_output, render=render, flags=flags, arguments=arguments)


def _ask(runtime: Runtime, outcome: Outcome) -> bool:
    """Show the exact call and ask y/N on the terminal. ``False`` when nobody can answer."""
    from rich.text import Text

    pending = outcome.pending_confirmation
    if pending is None:
        return False
    capability = runtime.registry.get(pending.capability, pending.version)
    console = stderr()
    title = capability.title if capability else pending.capability
    console.print(
        Text.assemble(
            ("Approve ", "bold"),
            (title, "bold cyan"),
            (f" ({pending.capability} v{pending.version})", "dim"),
        )
    )
    console.print(
        Text(
            "This call leaves this machine: what is shown below is sent to the internet.",
            style="yellow",
        )
    )
    from spyglass.capabilities.recipients import recipient_line, split_arguments
    from spyglass.privacy.notices import lines as notice_lines
    from spyglass.untrusted.shown import quoted

    line = recipient_line(pending.capability, pending.provider)
    if line is not None:
        console.print(Text(line, style="bold"))
    # Each value quoted, its hidden characters escaped: one bounded line per argument, which
    # nothing in it can end or restyle (Text never reads markup); the terminal wraps it.
    sent, kept = split_arguments(pending.arguments)
    for key, value in sent:
        console.print(Text.assemble((f"  {key}: ", "bold"), (quoted(value), "")), soft_wrap=True)
    for label, value in kept:
        console.print(
            Text.assemble(
                (f"  {label}: ", "bold"),
                (quoted(value), ""),
                (" (stays on this machine, never sent)", "dim"),
            ),
            soft_wrap=True,
        )
    for line in notice_lines(pending.notices, pending.arguments):
        console.print(Text("  " + line, style="bold yellow" if line.startswith("!") else "dim"))
    try:
        answer = click.prompt("Approve? [y/N]", default="", show_default=False, err=True)
    except (EOFError, click.Abort):
        return False
    return answer.strip().lower() in {"y", "yes"}


def _finish(
    outcome: Outcome,
    *,
    json_output: bool,
    render: Renderer | None,
    flags: Mapping[str, str] | None = None,
    arguments: Mapping[str, Any] | None = None,
) -> NoReturn:
    code = EXIT_FOR_STATUS[outcome.status]
    if outcome.error is not None and outcome.error.code == Code.INVALID_ARGUMENTS:
        # The arguments came from this command line: a flag out of range is a usage mistake,
        # whether click or the capability's schema catches it.
        code = EXIT_USAGE
    if json_output:
        print_json(outcome.to_dict())
    elif outcome.ok:
        if render is not None:
            render(outcome, stdout())
        else:
            print_json(outcome.result)
    else:
        report_problem(outcome, flags, arguments)
    raise click.exceptions.Exit(code)
