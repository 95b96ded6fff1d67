"""``spyglass fetch URL``: read a web page as Markdown, after your approval."""

from __future__ import annotations

import re
import sys
from typing import TYPE_CHECKING, Any

import click

from spyglass.cli.commands import summary
from spyglass.cli.invoke import run_capability
from spyglass.cli.output import json_option

if TYPE_CHECKING:
    from rich.console import Console

    from spyglass.core.outcome import Outcome

CAPABILITY = "web.fetch"

# Web text must not drive the terminal: escape sequences and other control characters go.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def clean(text: str) -> str:
    return _CONTROL.sub("", text)


@click.command("fetch", help=summary("fetch"))
@click.argument("url", help="The http or https address to read.")
@click.option(
    "--offset",
    type=click.IntRange(min=0),
    default=0,
    help="Start at this character (next_offset of the last part).",
)
@click.option(
    "--max-chars",
    type=click.IntRange(min=500, max=100_000),
    help="Largest part, in characters (default 100000, the largest: the whole page unless "
    "it is longer; fetch.max_chars is the part size given to a model).",
)
@click.option(
    "--focus",
    help="What you are looking for (a question or key terms): print the page's outline and "
    "the passages that answer it, not the whole page. It stays on this machine.",
)
@click.option("--raw", is_flag=True, help="Print only the text, no title or styling.")
@json_option
@click.option("--yes", "-y", is_flag=True, help="Approve this call without asking.")
def fetch(
    url: str,
    offset: int,
    max_chars: int | None,
    focus: str | None,
    raw: bool,
    json_output: bool,
    yes: bool,
) -> None:
    from spyglass.capabilities.fetch import MAX_CHARS

    arguments: dict[str, Any] = {"url": url}
    if offset:
        arguments["offset"] = offset
    if focus:
        arguments["focus"] = focus
        # A focused read's size is the owner's fetch.focus_max_chars unless asked otherwise.
        if max_chars is not None:
            arguments["max_chars"] = max_chars
    else:
        # Read at a terminal or by a program, a page is wanted whole: the setting's part
        # size budgets a model's context, which this output does not go to.
        arguments["max_chars"] = MAX_CHARS if max_chars is None else max_chars
    renderer = _render_raw if raw else _render
    run_capability(
        CAPABILITY,
        arguments,
        json_output=json_output,
        yes=yes,
        render=renderer,
        flags={"url": "URL", "offset": "--offset", "max_chars": "--max-chars", "focus": "--focus"},
    )


def _render_raw(outcome: Outcome, console: Console) -> None:
    result = outcome.result or {}
    sys.stdout.write(clean(str(result.get("text", ""))))
    if result.get("text"):
        sys.stdout.write("\n")
    sys.stdout.flush()


def _render(outcome: Outcome, console: Console) -> None:
    from rich.text import Text

    result = outcome.result or {}
    title = result.get("title")
    if title:
        console.print(Text(clean(str(title)), style="bold"))
    console.print(Text(clean(str(result.get("final_url", ""))), style="dim"))
    if result.get("redirected") and not result.get("text"):
        console.print(
            Text(
                "The page redirects to another site (shown above). It was not followed: "
                "fetch that address to read it.",
                style="yellow",
            )
        )
        return
    console.print()
    text = clean(str(result.get("text", "")))
    if console.is_terminal:
        from rich.markdown import Markdown  # markdown-it: only for a page printed here

        console.print(Markdown(text, hyperlinks=False))
    else:
        console.print(Text(text))
    note = result.get("note")
    if note:
        console.print()
        console.print(Text(f"[{clean(str(note))}]", style="yellow"))
    cut = result.get("cut_at_bytes")
    if cut is not None:
        console.print()
        console.print(
            Text(
                f"[the page is longer than {cut:,} bytes (fetch.max_page_bytes); only its "
                "beginning was read]",
                style="yellow",
            )
        )
    next_offset = result.get("next_offset")
    if next_offset is not None:
        total = result.get("total_chars")
        console.print()
        console.print(
            Text(
                f"[part ends at character {next_offset} of {total}; read on with "
                f"--offset {next_offset}]",
                style="dim",
            )
        )
