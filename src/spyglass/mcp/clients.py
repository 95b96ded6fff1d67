"""Ready-to-paste configuration for MCP hosts (``spyglass mcp config``).

Each snippet launches or reaches *this* Spyglass: the command is the absolute path of the
running executable, and a ``SPYGLASS_HOME`` in effect is passed on so the host's server uses
the same policy, settings and audit log as the person's own ``spyglass`` commands. So are the
``SPYGLASS_<SECTION>__<KEY>`` settings exported in the shell (a host starts its servers with
its own environment, where they would silently be missing), except secrets: a key is never
written into a snippet, and the person is told to put it in ``config.toml`` instead.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from spyglass.errors import InputError
from spyglass.mcp.addresses import DEFAULT_HTTP_PORT, endpoint_url
from spyglass.paths import HOME_ENV

SERVER_KEY = "spyglass"
DELEGATED_ENV = "SPYGLASS_CHANNELS__MCP__CONFIRMATION"


class Host(StrEnum):
    CLAUDE = "claude"
    LMSTUDIO = "lmstudio"
    CURSOR = "cursor"
    OPENWEBUI = "openwebui"
    CODEX = "codex"


@dataclass(frozen=True)
class Snippet:
    """The text to paste, its format, where it goes, and what of this shell's settings it
    leaves out (one sentence each)."""

    text: str
    format: str  # "json" or "toml"
    where: str
    left_out: tuple[str, ...] = ()


def launch_command(argv0: str | None = None, executable: str | None = None) -> list[str]:
    """The absolute command that starts this Spyglass's stdio server."""
    argv0 = argv0 if argv0 is not None else sys.argv[0]
    executable = executable or sys.executable
    if Path(argv0).name == "__main__.py" or not argv0:
        # Started as `python -m spyglass`: repeat that with the same interpreter.
        return [str(Path(executable).absolute()), "-m", "spyglass", "mcp"]
    found = shutil.which(argv0) if os.sep not in argv0 else argv0
    return [str(Path(found or argv0).absolute()), "mcp"]


def server_env(*, delegated: bool, environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment the host starts the server with (:func:`carried`, without the notes)."""
    return carried(delegated=delegated, environ=environ)[0]


def carried(
    *, delegated: bool, environ: Mapping[str, str] | None = None
) -> tuple[dict[str, str], list[str]]:
    """The server's environment: ``SPYGLASS_HOME``, the settings exported in this shell, and
    the delegated statement when asked for; and a sentence for each ``SPYGLASS_`` variable
    left out (a secret, a name that is no setting, a delegated statement made in the shell).
    """
    environ = os.environ if environ is None else environ
    env: dict[str, str] = {}
    notes: list[str] = []
    home = environ.get(HOME_ENV, "").strip()
    if home:
        env[HOME_ENV] = str(Path(home).expanduser().absolute())
    exported = sorted(n for n in environ if n.startswith("SPYGLASS_") and n != HOME_ENV)
    if exported:
        # The settings model is loaded only when there is something to sort out.
        from spyglass.settings.loading import environment_setting

    for name in exported:
        if name == DELEGATED_ENV:
            # Only --delegated states it: a shell's leftover must not silently stop Spyglass
            # asking, least of all for a host that runs read-only tools unasked.
            notes.append(
                f"{name} is set in this shell but not written into the snippet: say "
                "--delegated to state that the host asks before every call"
            )
            continue
        setting = environment_setting(name)
        if setting is None:
            notes.append(f"{name} names no Spyglass setting; it is left out of the snippet")
        elif setting[1]:
            notes.append(
                f"{name} holds a secret, which is never written into a snippet: put "
                f"{setting[0]} in config.toml (`spyglass config path config` shows where) so "
                "the host's server finds it"
            )
        else:
            env[name] = environ[name]
    if delegated:
        env[DELEGATED_ENV] = "delegated"
    return env, notes


def _stdio_entry(command: Sequence[str], env: Mapping[str, str]) -> dict[str, Any]:
    entry: dict[str, Any] = {"command": command[0], "args": list(command[1:])}
    if env:
        entry["env"] = dict(env)
    return entry


#: Stands for the API token in a snippet: the token is a secret, so it is never printed.
TOKEN_PLACEHOLDER = "PASTE-A-SPYGLASS-API-TOKEN"  # noqa: S105

WHERE = {
    Host.CLAUDE: "Claude Desktop: Settings > Developer > Edit Config "
    '(claude_desktop_config.json); merge into "mcpServers" and restart Claude Desktop.',
    Host.LMSTUDIO: "LM Studio: Program tab > Install > Edit mcp.json; merge into "
    '"mcpServers" and save.',
    Host.CURSOR: "Cursor: ~/.cursor/mcp.json (all projects) or .cursor/mcp.json (one "
    'project); merge into "mcpServers".',
    Host.OPENWEBUI: "Open WebUI: start `spyglass mcp --http` first, then add the connection "
    "under Admin Settings > External Tools (Type: MCP Streamable HTTP, Auth: Bearer), or set "
    "this JSON as the TOOL_SERVER_CONNECTIONS environment variable of a fresh Open WebUI. "
    f'Replace "{TOKEN_PLACEHOLDER}" with the owner\'s API token (the api_token file `spyglass '
    "config path` names) or a person's (`spyglass users api-token NAME`): calls are then "
    "that person's.",
    Host.CODEX: "Codex: append to ~/.codex/config.toml.",
}


#: Hosts that skip their own approval prompt for tools marked ``readOnlyHint: true`` (as
#: Spyglass's are, honestly): with ``delegated`` nobody at all would approve a call, so that
#: statement is not offered for them, and their snippet says why.
AUTO_APPROVES_READ_ONLY: Mapping[Host, str] = {
    Host.CODEX: (
        "Codex runs tools marked readOnlyHint without asking, so --delegated is not offered: "
        "with it nobody would approve a call. Spyglass asks you itself (MCP elicitation)."
    ),
}


class DelegationRefused(InputError):
    """``delegated`` was asked for a host that would then ask nobody."""


def snippet(
    host: Host,
    *,
    port: int = DEFAULT_HTTP_PORT,
    delegated: bool = False,
    command: Sequence[str] | None = None,
    environ: Mapping[str, str] | None = None,
) -> Snippet:
    """The configuration for ``host``; ``delegated`` states the host asks before each call.

    :class:`DelegationRefused` when ``host`` auto-approves read-only tools.
    """
    if delegated and host in AUTO_APPROVES_READ_ONLY:
        raise DelegationRefused(AUTO_APPROVES_READ_ONLY[host])
    command = list(command) if command is not None else launch_command()
    env, left_out = carried(delegated=delegated, environ=environ)
    if host is Host.OPENWEBUI:
        connection = {
            "type": "mcp",
            "url": endpoint_url(port),
            "path": "",
            # Every request to `spyglass mcp --http` needs a token (Authorization: Bearer).
            "auth_type": "bearer",
            "key": TOKEN_PLACEHOLDER,
            "config": {"enable": True},
            "info": {
                "id": SERVER_KEY,
                "name": "Spyglass",
                "description": "Web search and page reading, approved by the owner.",
            },
        }
        # `spyglass mcp --http` runs in the person's own shell, with its environment.
        return Snippet(json.dumps([connection], indent=2), "json", WHERE[host])
    entry = _stdio_entry(command, env)
    notes = tuple(left_out)
    if host is Host.CODEX:
        import tomli_w  # only Codex's snippet is TOML

        table = tomli_w.dumps({"mcp_servers": {SERVER_KEY: entry}})
        return Snippet(_comment(host) + table, "toml", WHERE[host], notes)
    text = json.dumps({"mcpServers": {SERVER_KEY: entry}}, indent=2)
    return Snippet(text, "json", WHERE[host], notes)


def _comment(host: Host) -> str:
    """Why ``delegated`` is missing from this host's snippet, as TOML comment lines."""
    why = AUTO_APPROVES_READ_ONLY.get(host)
    return "".join(f"# {line}\n" for line in textwrap.wrap(why, 92)) if why else ""
