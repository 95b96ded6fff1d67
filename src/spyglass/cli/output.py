"""Printing for the CLI: rich for people, plain JSON for programs, exit codes for both."""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NoReturn

import click

if TYPE_CHECKING:
    from rich.console import Console

    from spyglass.core.outcome import Outcome

#: Exit codes, part of the CLI's contract (docs/cli.md, README).
EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_REJECTED = 3
EXIT_DENIED = 4

#: The shared ``--json`` flag of every command (passed as ``json_output``).
json_option = click.option(
    "--json", "json_output", is_flag=True, show_default=False, help="Print JSON for programs."
)

EXIT_FOR_STATUS = {
    "ok": EXIT_OK,
    "failed": EXIT_FAILED,
    "rejected": EXIT_REJECTED,
    "denied": EXIT_DENIED,
    "pending_confirmation": EXIT_DENIED,
}


def stdout() -> Console:
    # rich is imported by the first thing printed, not with the command line (--help).
    from rich.console import Console

    console = Console(highlight=False, soft_wrap=True)
    if not console.is_terminal:
        # Piped output has no width to fit; rich's default of 80 would cut table cells short.
        console.width = max(console.width, 160)
    return console


def stderr() -> Console:
    from rich.console import Console

    return Console(stderr=True, highlight=False, soft_wrap=True)


def print_json(value: Any) -> None:
    """Machine output: one JSON document on stdout, nothing else."""
    sys.stdout.write(json.dumps(value, ensure_ascii=False, indent=2) + "\n")
    sys.stdout.flush()


#: ANSI styles for the error lines, written without rich: a refusal is often all a command
#: prints, and importing and starting rich would cost more than the rest of the refusal.
_BOLD_RED, _DIM, _RESET = "\x1b[1;31m", "\x1b[2m", "\x1b[0m"
# A message may quote a provider's or a page's words: they must not drive the terminal (rich
# stripped these too).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _colour() -> bool:
    """Whether stderr gets colour: a terminal, unless NO_COLOR (or TERM=dumb) says no."""
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return sys.stderr.isatty() and os.environ.get("TERM") != "dumb"


def _error_line(
    label: str, message: str, code: str | None = None, *, style: str = _BOLD_RED
) -> None:
    colour = _colour()
    message = _CONTROL.sub("", message)
    parts = [f"{style}{label}{_RESET}" if colour else label, message]
    if code is not None:
        parts.append(f"{_DIM}({code}){_RESET}" if colour else f"({code})")
    sys.stderr.write(" ".join(parts) + "\n")
    sys.stderr.flush()


def fail(message: str, code: int = EXIT_FAILED, *, hint: str | None = None) -> NoReturn:
    """Print ``error: message`` (and a hint) to stderr and exit with ``code``."""
    _error_line("error:", message)
    if hint:
        _error_line("hint:", hint, style=_DIM)
    raise click.exceptions.Exit(code)


def report_problem(
    outcome: Outcome,
    flags: Mapping[str, str] | None = None,
    arguments: Mapping[str, Any] | None = None,
) -> None:
    """Say, for a person, why an invocation did not succeed.

    ``flags`` maps argument names to the command-line flags that set them, so a message
    about ``include_domains.0`` speaks of ``--site 'value'``, which is what the person typed.
    """
    if outcome.error is None:
        return
    label = {"rejected": "refused", "denied": "not approved", "failed": "failed"}.get(
        outcome.status, outcome.status
    )
    message = outcome.error.message
    if flags:
        message = in_flag_terms(message, flags, arguments or {})
    _error_line(f"{label}:", message, outcome.error.code)


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
