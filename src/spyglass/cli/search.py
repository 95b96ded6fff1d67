"""``spyglass search QUERY``: one ``web.search`` call, approved by the person who typed it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import typer

from spyglass.cli.invoke import load_runtime, run_capability
from spyglass.cli.output import EXIT_USAGE, JSON_OPTION, fail

if TYPE_CHECKING:
    from rich.console import Console

    from spyglass.core.outcome import Outcome

# Module-level, as list-valued options must not be built in argument defaults.
SITE_OPTION = typer.Option(
    None, "--site", help="Only results from this host and its subdomains (repeatable)."
)
EXCLUDE_OPTION = typer.Option(
    None, "--exclude", help="No results from this host or its subdomains (repeatable)."
)


#: The flag behind each web.search argument, so refusals name what the person typed.
FLAGS = {
    "query": "QUERY",
    "count": "--count",
    "time_range": "--time-range",
    "include_domains": "--site",
    "exclude_domains": "--exclude",
}


def render(outcome: Outcome, console: Console) -> None:
    from rich.text import Text

    """A numbered list of title, URL and snippet; web text is shown literally, never as markup."""
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
    summary = f"{len(results)} result(s) from {provider}"
    if result.get("partial"):
        summary += " (partial: some of its sources did not answer)"
    console.print(Text(summary, style="dim"))
    for note in result.get("notes", []):
        console.print(Text("note: " + note, style="yellow"))


def search(
    query: str = typer.Argument(..., help="What to search for."),
    count: int = typer.Option(5, "--count", "-n", help="How many results (1–10)."),
    time_range: str | None = typer.Option(
        None, "--time-range", help="Only recent results: day, week, month or year."
    ),
    site: list[str] | None = SITE_OPTION,
    exclude: list[str] | None = EXCLUDE_OPTION,
    provider: str | None = typer.Option(
        None, "--provider", help="Use this provider instead of search.providers."
    ),
    json_output: bool = JSON_OPTION,
    yes: bool = typer.Option(False, "--yes", "-y", help="Approve this search without asking."),
) -> None:
    """Search the web (needs web access on; asks before anything leaves this machine)."""
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
