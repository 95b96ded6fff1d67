"""``spyglass search QUERY``: one ``web.search`` call, approved by the person who typed it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from spyglass.cli.commands import summary
from spyglass.cli.invoke import load_runtime, run_capability
from spyglass.cli.output import EXIT_USAGE, fail, json_option

if TYPE_CHECKING:
    from rich.console import Console

    from spyglass.core.outcome import Outcome

#: The flag behind each web.search argument, so refusals name what the person typed.
FLAGS = {
    "query": "QUERY",
    "count": "--count",
    "time_range": "--time-range",
    "include_domains": "--site",
    "exclude_domains": "--exclude",
}


def render(outcome: Outcome, console: Console) -> None:
    """A numbered list of title, URL and snippet; web text is shown literally, never as markup."""
    from rich.text import Text

    result = outcome.result or {}
    results: list[dict[str, Any]] = result.get("results", [])
    provider = result.get("provider", "?")
    if not results:
        console.print(Text(f"No results from {provider}.", style="bold"))
    for number, item in enumerate(results, start=1):
        console.print(Text.assemble((f"{number}. ", "bold"), (item["title"], "bold")))
        console.print(Text("   " + item["url"], style="cyan"))
        if item["snippet"]:
            console.print(Text("   " + item["snippet"]))
        console.print()
    total = f"{len(results)} result(s) from {provider}"
    if result.get("partial"):
        total += " (partial: some of its sources did not answer)"
    console.print(Text(total, style="dim"))
    for note in result.get("notes", []):
        console.print(Text("note: " + note, style="yellow"))


@click.command("search", help=summary("search"))
@click.argument("query", help="What to search for.")
@click.option(
    "--count",
    "-n",
    type=int,
    default=5,
    help="How many results (1–20; the owner's search.max_results caps it).",
)
@click.option("--time-range", help="Only recent results: day, week, month or year.")
@click.option(
    "--site",
    multiple=True,
    help="Only results from this host and its subdomains (repeatable).",
)
@click.option(
    "--exclude",
    multiple=True,
    help="No results from this host or its subdomains (repeatable).",
)
@click.option("--provider", help="Use this provider instead of search.providers.")
@json_option
@click.option("--yes", "-y", is_flag=True, help="Approve this search without asking.")
def search(
    query: str,
    count: int,
    time_range: str | None,
    site: tuple[str, ...],
    exclude: tuple[str, ...],
    provider: str | None,
    json_output: bool,
    yes: bool,
) -> None:
    overrides: dict[str, Any] = {}
    if provider is not None:
        from spyglass.search.providers import PROVIDERS

        if provider not in PROVIDERS:
            fail(
                f"{provider!r} is not a search provider",
                EXIT_USAGE,
                hint=f"use one of {', '.join(sorted(PROVIDERS))}",
            )
        # Naming a provider means exactly that one: no weighted choice, no fallback.
        overrides = {"search.providers": provider, "search.fallback": []}
    arguments: dict[str, Any] = {"query": query, "count": count}
    if time_range is not None:
        arguments["time_range"] = time_range
    # Passed as typed: web.search normalises them (Example.COM. is example.com) and refuses
    # unusable ones before anyone is asked; FLAGS makes its messages speak of --site.
    if site:
        arguments["include_domains"] = list(site)
    if exclude:
        arguments["exclude_domains"] = list(exclude)
    run_capability(
        "web.search",
        arguments,
        json_output=json_output,
        yes=yes,
        render=render,
        runtime=load_runtime(overrides) if overrides else None,
        flags=FLAGS,
    )
