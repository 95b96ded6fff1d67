"""``spyglass doctor``: check the whole set-up, and say for each problem the one thing to do.

Checks, in order: the model server (found or set, reachable, answering), whether the model
takes tools, the search providers (configured, and their address reachable: a request with
no query), page reading, the rendering browser, the state stores, and the permissions of
the state folders. Exits 1 when something is broken.
"""

from __future__ import annotations

import asyncio
import os
import stat
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

import click

from spyglass.cli.commands import summary
from spyglass.cli.invoke import load_runtime
from spyglass.cli.output import EXIT_FAILED, json_option, print_json, stdout

if TYPE_CHECKING:
    from spyglass.llm.discovery import LocalServer
    from spyglass.paths import Paths
    from spyglass.runtime import Runtime
    from spyglass.settings import Settings

#: Seconds a search provider's address has to answer.
REACH_SECONDS = 5.0

#: The one tool offered to the model to see whether it takes tools at all.
PROBE_TOOL = {
    "type": "function",
    "function": {
        "name": "spyglass_probe",
        "description": "Does nothing; offered to see whether the model accepts tools.",
        "parameters": {"type": "object", "properties": {}},
    },
}


@dataclass(frozen=True)
class Check:
    """One piece of the set-up: ``ok`` True (working), False (broken) or None (not checked,
    because something it needs is broken); ``fix`` is the one thing to do when broken."""

    name: str
    ok: bool | None
    detail: str
    fix: str = ""


@click.command("doctor", help=summary("doctor"))
@json_option
def doctor(json_output: bool) -> None:
    runtime = load_runtime()
    checks = asyncio.run(examine(runtime))
    broken = any(check.ok is False for check in checks)
    if json_output:
        print_json({"ok": not broken, "checks": as_dicts(checks)})
    else:
        console = stdout()
        for check in checks:
            mark = {True: "ok", False: "BROKEN", None: "skipped"}[check.ok]
            console.print(f"{mark:8} {check.name}: {check.detail}", markup=False)
            if check.ok is False and check.fix:
                console.print(f"{'':8} → {check.fix}", markup=False)
        console.print("Everything works." if not broken else "Something is broken: see above.")
    if broken:
        raise SystemExit(EXIT_FAILED)


async def examine(runtime: Runtime, *, servers: Sequence[LocalServer] | None = None) -> list[Check]:
    """Every check, in order. ``servers``: the local model servers looked for (the usual
    ones unless given)."""
    settings = runtime.settings
    checks = await model_checks(settings, runtime.paths, servers=servers)
    checks += await search_checks(settings)
    checks.append(fetch_check(settings))
    checks.append(browser_check(settings))
    checks.append(await stores_check(runtime))
    checks.append(folders_check(runtime.paths))
    return checks


async def model_checks(
    settings: Settings, paths: Paths, *, servers: Sequence[LocalServer] | None = None
) -> list[Check]:
    """The model server (found, reachable, answering) and whether the model takes tools."""
    from spyglass.llm.choice import SETTINGS_HINT, ModelFinder
    from spyglass.llm.client import ModelClient, ModelUnavailable, ToolsRefused
    from spyglass.llm.discovery import LOCAL_SERVERS

    llm = settings.llm.model_copy()
    finder = ModelFinder(
        llm, servers=LOCAL_SERVERS if servers is None else servers, memory=paths.model_choice_file
    )
    await finder.find()
    tools_unknown = Check("tool support", None, "not checked: no model answers")
    if finder.problem:
        return [Check("model server", False, finder.problem, finder.fix), tools_unknown]
    client = ModelClient(llm)
    name = llm.model or "the model"
    try:
        async for _ in client.stream(
            [{"role": "user", "content": "Reply with the word OK."}], [PROBE_TOOL]
        ):
            pass
    except ToolsRefused:
        return [
            Check("model server", True, f"{name} at {llm.base_url} answers"),
            Check(
                "tool support",
                False,
                f"{name} cannot use tools: Spyglass can search and read pages only with "
                "a model that takes tools",
                "use a model with tool support (for Ollama, one whose page lists 'tools'; "
                "for llama-server, start it with --jinja)",
            ),
        ]
    except ModelUnavailable as exc:
        fix = f"start the model server, or {SETTINGS_HINT}"
        return [Check("model server", False, exc.message, fix), tools_unknown]
    finally:
        await client.aclose()
    return [
        Check("model server", True, f"{name} at {llm.base_url} answers"),
        Check("tool support", True, f"{name} accepts tools"),
    ]


async def search_checks(settings: Settings) -> list[Check]:
    """Each configured search provider: its settings, then whether its address answers."""
    import httpx

    from spyglass.capabilities.readiness import search_problems
    from spyglass.providers.routing import names
    from spyglass.search.dispatch import endpoint_for
    from spyglass.search.providers import PROVIDERS

    problems = search_problems(settings)
    if problems:
        return [
            Check("search", False, problem, "fix the [search] settings it names")
            for problem in problems
        ]
    wanted = list(dict.fromkeys([*names(settings.search.providers), *settings.search.fallback]))
    checks = []
    async with httpx.AsyncClient(timeout=REACH_SECONDS, follow_redirects=False) as client:
        for provider in wanted:
            base_url = endpoint_for(PROVIDERS[provider], settings.search).base_url
            label = f"search provider {provider}"
            try:
                # Any answer means reachable: no query and no key are sent.
                await client.get(base_url)
            except httpx.HTTPError:
                checks.append(
                    Check(
                        label,
                        False,
                        f"{base_url} cannot be reached",
                        f"start it or check this machine's network (or the base_url of "
                        f"search.{provider})",
                    )
                )
            else:
                checks.append(Check(label, True, f"{base_url} answers"))
    return checks


def fetch_check(settings: Settings) -> Check:
    """Whether page reading is configured so it can run."""
    from spyglass.capabilities.readiness import fetch_problems

    problems = fetch_problems(settings)
    if problems:
        return Check("page reading", False, "; ".join(problems), "fix the [fetch] settings named")
    return Check("page reading", True, f"providers: {settings.fetch.providers}")


def browser_check(settings: Settings) -> Check:
    """Whether a browser is there for pages that need JavaScript."""
    import importlib.util

    from spyglass.fetch.render.browser import find_browser

    fetch = settings.fetch
    if fetch.render == "off":
        return Check("rendering browser", True, "rendering is off (fetch.render = off)")
    if importlib.util.find_spec("playwright") is None:
        return Check(
            "rendering browser",
            False,
            "Playwright is not installed: pages that need JavaScript are read without it",
            "pip install 'spyglass[render]'",
        )
    found = find_browser(fetch.browser_path)
    if found is None and fetch.browser_path:
        return Check(
            "rendering browser",
            False,
            f"fetch.browser_path {fetch.browser_path} is not an executable file",
            "set fetch.browser_path to Chromium's executable, or leave it empty",
        )
    if found is None:
        return Check(
            "rendering browser",
            False,
            "no Chromium found (only Playwright's own, if it has one installed)",
            "apt-get install chromium (or set fetch.browser_path)",
        )
    return Check("rendering browser", True, found)


async def stores_check(runtime: Runtime) -> Check:
    """Whether the state stores can be opened and their schemas brought up to date."""
    from spyglass.errors import StorageError, StoreUnavailable

    try:
        await asyncio.to_thread(runtime.stores.upgrade)
    except StoreUnavailable as exc:
        return Check(
            "state stores",
            False,
            str(exc),
            "start the state servers (state.redis_url, state.database_url) or use "
            "state.backend = embedded",
        )
    except StorageError as exc:
        return Check(
            "state stores", False, str(exc), f"check the permissions of {runtime.paths.home}"
        )
    finally:
        await runtime.stores.aclose()
    return Check("state stores", True, f"{runtime.stores.backend} stores are up")


def folders_check(paths: Paths) -> Check:
    """Whether the state folders are this user's, writable, and closed to others."""
    problems: list[tuple[str, str]] = []
    for folder in paths.folders:
        try:
            info = folder.stat()
        except FileNotFoundError:
            continue
        except OSError as exc:
            problems.append((f"{folder} cannot be read ({exc.strerror})", f"chmod 700 {folder}"))
            continue
        if hasattr(os, "getuid") and info.st_uid != os.getuid():
            problems.append((f"{folder} belongs to another user", f"chown -R $USER {folder}"))
        elif stat.S_IMODE(info.st_mode) & 0o077:
            mode = oct(stat.S_IMODE(info.st_mode))[2:]
            problems.append((f"{folder} is open to others (mode {mode})", f"chmod 700 {folder}"))
        elif not os.access(folder, os.W_OK | os.X_OK):
            problems.append((f"{folder} is not writable", f"chmod 700 {folder}"))
    if problems:
        return Check(
            "state folder",
            False,
            "; ".join(detail for detail, _ in problems),
            "; ".join(dict.fromkeys(fix for _, fix in problems)),
        )
    return Check("state folder", True, f"{paths.home} is private to this user")


def as_dicts(checks: Sequence[Check]) -> list[dict[str, Any]]:
    return [asdict(check) for check in checks]
