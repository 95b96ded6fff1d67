"""``spyglass db``: the state stores' schemas (SQLite files, or PostgreSQL when shared)."""

from __future__ import annotations

import click

from spyglass.cli.commands import summary
from spyglass.cli.invoke import load_runtime
from spyglass.cli.output import EXIT_FAILED, fail, json_option, print_json, stdout
from spyglass.errors import StorageError, StoreUnavailable


@click.group("db", help=summary("db"), no_args_is_help=True)
def db() -> None:
    pass


@db.command()
@json_option
def upgrade(json_output: bool) -> None:
    """Run the schema migrations now (`spyglass serve` also runs them on start)."""
    import asyncio

    runtime = load_runtime()
    try:
        versions = runtime.stores.upgrade()
    except (StoreUnavailable, StorageError) as exc:
        fail(str(exc), EXIT_FAILED, hint="check state.database_url, or that the server runs")
    finally:
        asyncio.run(runtime.stores.aclose())
    if json_output:
        print_json({"backend": runtime.stores.backend, "schema_versions": versions})
        return
    for store, version in versions.items():
        stdout().print(f"{store}: schema version {version} (up to date)", markup=False)
