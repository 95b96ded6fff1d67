"""``spyglass models``: the model servers and models found on this machine, and the one in use."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import click

from spyglass.cli.commands import summary
from spyglass.cli.invoke import load_runtime
from spyglass.cli.output import json_option, print_json, stdout

if TYPE_CHECKING:
    from spyglass.llm.discovery import LocalServer
    from spyglass.paths import Paths
    from spyglass.settings import LLMSettings


@click.command("models", help=summary("models"))
@json_option
def models(json_output: bool) -> None:
    runtime = load_runtime()
    found = asyncio.run(find(runtime.settings.llm, runtime.paths))
    if json_output:
        print_json(found)
        return
    console = stdout()
    from rich.table import Table  # only the commands that print a table load it

    if found["servers"]:
        table = Table("server", "address", "model", "tools", "", box=None, header_style="bold")
        for server in found["servers"]:
            for model in server["models"]:
                used = server["base_url"] == found["base_url"] and model["name"] == found["model"]
                tools = {True: "yes", False: "no", None: "?"}[model["tools"]]
                table.add_row(
                    server["server"],
                    server["base_url"],
                    model["name"],
                    tools,
                    "in use" if used else "",
                )
        console.print(table)
    console.print(found["message"], markup=False)


async def find(
    llm: LLMSettings, paths: Paths, *, servers: Sequence[LocalServer] | None = None
) -> dict[str, Any]:
    """What :class:`~spyglass.llm.choice.ModelFinder` finds, with each model's tool support
    where the server says it (Ollama). ``servers``: the usual local ones unless given."""
    from spyglass.llm.choice import ModelFinder
    from spyglass.llm.discovery import LOCAL_SERVERS, FoundServer, ServerDown, list_models

    finder = ModelFinder(
        llm.model_copy(),
        servers=LOCAL_SERVERS if servers is None else servers,
        memory=paths.model_choice_file,
        details=True,
    )
    await finder.find()
    found = finder.as_dict()
    if finder.status == "configured" and not found["servers"]:
        # Set by the owner: nothing was looked for, but what the server lists is still shown.
        try:
            listed = await list_models(llm.base_url, api_key=finder.api_key())
        except ServerDown:
            listed = None
        if listed is not None:
            server = FoundServer("the model server", llm.base_url.rstrip("/"), tuple(listed))
            found["servers"] = [server.as_dict()]
    return found
