"""``spyglass serve``: the HTTP API, the console and the Open WebUI endpoints on one port."""

from __future__ import annotations

import ipaddress
import os
import signal
import socket
from types import FrameType
from typing import TYPE_CHECKING

import click

from spyglass.cli.commands import summary
from spyglass.cli.invoke import load_runtime
from spyglass.cli.output import EXIT_FAILED, EXIT_USAGE, fail, stderr
from spyglass.errors import StorageError, StoreUnavailable

if TYPE_CHECKING:
    from spyglass.runtime import Runtime


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def bind(host: str, port: int) -> socket.socket:
    """Bind before starting, so port 0 works and the real port is known for the Host check."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP spelled out: asyncio only turns Nagle off (TCP_NODELAY) for sockets whose
    # proto says TCP, and without it every small response waits ~40 ms for a delayed ACK.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host.strip("[]"), port))
    except OSError as exc:
        sock.close()
        fail(
            f"cannot listen on {host}:{port} ({exc.strerror})",
            EXIT_FAILED,
            hint="is another spyglass serve running? choose another port with --port",
        )
    sock.listen(128)
    sock.setblocking(False)
    return sock


@click.command("serve", help=summary("serve"))
@click.option("--host", help="Bind address (server.host).")
@click.option("--port", type=int, help="Bind port (server.port).")
@click.option("--allow-remote", is_flag=True, help="Allow binding an address other than loopback.")
@click.option(
    "--workers",
    type=click.IntRange(min=1, max=64),
    default=1,
    help="Worker processes sharing the port and every piece of state (state.db, or Redis "
    "and PostgreSQL with state.backend = shared).",
)
@click.option(
    "--print-login-url",
    is_flag=True,
    help="Ask the running service for a new one-time console link, print it and exit.",
)
def serve(
    host: str | None, port: int | None, allow_remote: bool, workers: int, print_login_url: bool
) -> None:
    # The web framework and the server are imported here, by the one command that uses them,
    # so that every other command starts quickly.
    import asyncio

    import uvicorn

    from spyglass.llm.choice import ModelFinder
    from spyglass.llm.naming import model_problem
    from spyglass.service import server
    from spyglass.service.app import create_app
    from spyglass.service.worker import url_host

    runtime = load_runtime({"server.host": host, "server.port": port})
    settings = runtime.settings
    if print_login_url:
        _print_login_url(runtime.paths.api_token_file, settings.server.host, settings.server.port)
        return
    # Said at start, not after the owner approved a call: the capability is not offered
    # until it is fixed, and everything else keeps working.
    runtime.report_problems()
    host = settings.server.host
    if not is_loopback(host):
        if not allow_remote:
            fail(
                f"refusing to listen on {host}: only loopback addresses are allowed by default",
                EXIT_USAGE,
                hint="add --allow-remote if other machines should reach this service "
                "(anyone who can reach it still needs the API token)",
            )
        stderr().print(
            f"[yellow]warning:[/] listening on {host}: other machines on the network can "
            "reach this service; keep the API token secret."
        )
    sock = bind(host, settings.server.port)
    port = sock.getsockname()[1]
    try:
        # Migrations before any worker starts; then the first login code, in the shared store
        # every worker reads.
        asyncio.run(asyncio.to_thread(runtime.stores.upgrade))
        code = asyncio.run(_first_login_code(runtime))
    except (StoreUnavailable, StorageError) as exc:
        sock.close()
        fail(
            str(exc),
            EXIT_FAILED,
            hint="start the state servers (state.redis_url, state.database_url) or use "
            "state.backend = embedded",
        )
    console = stderr()
    base = f"http://{url_host(host)}:{port}"
    console.print(f"Spyglass data: {runtime.paths.home}", markup=False)
    if runtime.stores.backend == "shared":
        console.print("  state: shared (Redis and PostgreSQL)", markup=False)
    else:
        console.print(f"  history: {runtime.paths.database_file}", markup=False)
        console.print(f"  sessions and pending approvals: {runtime.paths.state_file}", markup=False)
    console.print(f"  audit log: {runtime.paths.audit_file}", markup=False)
    console.print(f"  API token: {runtime.paths.api_token_file}", markup=False)
    console.print(f"API: {base}/api/v1", markup=False)
    finder = ModelFinder(settings.llm, memory=runtime.paths.model_choice_file)
    console.print(f"Model: {asyncio.run(finder.find())}", markup=False)
    # The finder names the model it found in the settings; one still unnamed is said plainly.
    unnamed = model_problem(settings.llm)
    if unnamed is not None:
        console.print(f"warning: {unnamed}", markup=False)
    console.print(
        f"Open the console (link works once, for 10 minutes):\n  {base}/login?code={code}",
        markup=False,
    )
    if workers > 1:
        console.print(f"Workers: {workers}", markup=False)
    console.print("Press Ctrl-C to stop.")
    # uvicorn shuts down gracefully on SIGINT and SIGTERM alike, then raises the signal again
    # under the handler that was there before it. For SIGINT that is a KeyboardInterrupt;
    # for SIGTERM the default handler would kill the process (exit 143) before the goodbye.
    # Stopping on SIGTERM the way Ctrl-C stops makes `kill` and service managers clean too.
    previous = signal.signal(signal.SIGTERM, _stop_like_ctrl_c)
    try:
        if workers > 1:
            _run_workers(host, port, workers, sock)
        else:
            app = create_app(runtime, port=port, extra_hosts=[url_host(host)], finder=finder)
            uvicorn.Server(server.config(app)).run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
        sock.close()
    console.print("Spyglass stopped.")


def _run_workers(host: str, port: int, workers: int, sock: socket.socket) -> None:
    from uvicorn.supervisors import Multiprocess

    from spyglass.service import server

    # Each worker builds its own runtime from the same settings: the flags travel as
    # environment variables, with the port actually bound.
    os.environ["SPYGLASS_SERVER__HOST"] = host
    os.environ["SPYGLASS_SERVER__PORT"] = str(port)
    config = server.config("spyglass.service.worker:create", factory=True, workers=workers)
    Multiprocess(config, sockets=[sock]).run()


async def _first_login_code(runtime: Runtime) -> str:
    # On a loop of its own, before uvicorn's: its connections are closed with it.
    try:
        return await runtime.stores.login_codes.issue()
    finally:
        await runtime.stores.aclose()


def _stop_like_ctrl_c(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def _print_login_url(token_file: object, host: str, port: int) -> None:
    from pathlib import Path

    import httpx

    from spyglass.service.auth import load_or_create_token
    from spyglass.service.worker import url_host

    path = Path(str(token_file))
    if not path.exists():
        fail("no API token yet: start `spyglass serve` first", EXIT_FAILED)
    token = load_or_create_token(path)
    base = f"http://{url_host(host)}:{port}"
    try:
        response = httpx.post(
            f"{base}/api/v1/login-codes",
            headers={"Authorization": f"Bearer {token}"},
            timeout=5,
            trust_env=False,
        )
    except httpx.HTTPError:
        fail(
            f"no Spyglass service answers at {base}",
            EXIT_FAILED,
            hint="start it with `spyglass serve` (it prints a console link itself)",
        )
    if response.status_code != 200:
        fail(f"the service at {base} refused (HTTP {response.status_code})", EXIT_FAILED)
    click.echo(f"{base}{response.json()['path']}")
