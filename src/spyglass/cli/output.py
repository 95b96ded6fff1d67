"""Printing for the CLI: rich for people, plain JSON for programs, exit codes for both."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Mapping
from typing import Any, NoReturn

import typer
from rich.console import Console

from spyglass.core.outcome import Outcome

#: Exit codes, part of the CLI's contract (docs/cli.md, README).
EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_REJECTED = 3
EXIT_DENIED = 4

#: The shared ``--json`` flag of every command.
JSON_OPTION = typer.Option(False, "--json", help="Print JSON for programs.")

EXIT_FOR_STATUS = {
    "ok": EXIT_OK,
    "failed": EXIT_FAILED,
    "rejected": EXIT_REJECTED,
    "denied": EXIT_DENIED,
    "pending_confirmation": EXIT_DENIED,
}


def stdout() -> Console:
    console = Console(highlight=False, soft_wrap=True)
    if not console.is_terminal:
        # Piped output has no width to fit; rich's default of 80 would cut table cells short.
        console.width = max(console.width, 160)
    return console


def stderr() -> Console:
    return Console(stderr=True, highlight=False, soft_wrap=True)


def print_json(value: Any) -> None:
    """Machine output: one JSON document on stdout, nothing else."""
    sys.stdout.write(json.dumps(value, ensure_ascii=False, indent=2) + "\n")
    sys.stdout.flush()


def fail(message: str, code: int = EXIT_FAILED, *, hint: str | None = None) -> NoReturn:
    """Print ``error: message`` (and a hint) to stderr and exit with ``code``."""
    console = stderr()
    console.print(f"[bold red]error:[/] {_escape(message)}")
    if hint:
        console.print(f"[dim]hint:[/] {_escape(hint)}")
    raise typer.Exit(code)


def report_problem(
    outcome: Outcome,
    flags: Mapping[str, str] | None = None,
    arguments: Mapping[str, Any] | None = None,
) -> None:
    """Say, for a person, why an invocation did not succeed.

    ``flags`` maps argument names to the command-line flags that set them, so a message
    about ``include_domains.0`` speaks of ``--site 'value'``, which is what the person typed.
    """
    console = stderr()
    if outcome.error is None:
        return
    label = {"rejected": "refused", "denied": "not approved", "failed": "failed"}.get(
        outcome.status, outcome.status
    )
    message = outcome.error.message
    if flags:
        message = in_flag_terms(message, flags, arguments or {})
    console.print(f"[bold red]{label}:[/] {_escape(message)} [dim]({outcome.error.code})[/]")


def in_flag_terms(message: str, flags: Mapping[str, str], arguments: Mapping[str, Any]) -> str:
    """``message`` with argument names (and ``name.N`` / ``name entry N``) as flags."""
    names = "|".join(re.escape(name) for name in sorted(flags, key=len, reverse=True))
    pattern = re.compile(rf"(?<![\w.-])({names})(?:\.(\d+)| entry (\d+))?(?![\w-])")

    def swap(match: re.Match[str]) -> str:
        name, zero_based, one_based = match.groups()
        flag = flags[name]
        values = arguments.get(name)
        index = int(zero_based) if zero_based else int(one_based) - 1 if one_based else None
        if index is not None and isinstance(values, list) and 0 <= index < len(values):
            return f"{flag} {str(values[index])[:80]!r}"
        return flag

    return pattern.sub(swap, message)


def _escape(text: str) -> str:
    from rich.markup import escape

    return escape(text)
