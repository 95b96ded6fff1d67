"""Serving the MCP server: stdio for hosts that launch Spyglass, Streamable HTTP on loopback.

On stdio, stdout carries protocol messages only; logs go to stderr. Over HTTP the server binds
127.0.0.1 and accepts only requests whose Host names this loopback port and whose Origin, if
any, is a loopback page — a web page on another site cannot drive it (DNS rebinding). Every
request to ``/mcp`` must also carry a credential, checked as the HTTP API checks it: the
owner's API token or a person's (``Authorization: Bearer``); its calls are that person's. Any
process on the machine can reach loopback, and the caller answers its own approvals, so
without this a child's process could run calls as the owner.
"""

from __future__ import annotations

import signal
import socket
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

import anyio

from spyglass.mcp.addresses import LOOPBACK, MCP_PATH, endpoint_url
from spyglass.mcp.callers import NEW_TOKEN, Callers, from_request, local_owner
from spyglass.mcp.server import build_server
from spyglass.mcp.stdio import stdio_transport
from spyglass.runtime import Runtime

if TYPE_CHECKING:
    from mcp.server.transport_security import TransportSecuritySettings
    from starlette.applications import Starlette


async def serve_stdio(runtime: Runtime, callers: Callers = local_owner) -> bool:
    """Serve one host over stdin/stdout until it closes the stream or the process is told to
    stop (SIGINT, SIGTERM); ``callers`` says whose each call is. True when stopped by a
    signal: stdin may then still be open, with a thread blocked reading it, so the caller
    exits the process."""
    server = build_server(runtime, callers=callers)
    lines, transport = stdio_transport()
    stopped = False

    async def stop_on_signal(scope: anyio.CancelScope) -> None:
        nonlocal stopped
        with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
            async for _ in signals:
                stopped = True
                scope.cancel()
                return

    async with anyio.create_task_group() as group:
        group.start_soon(stop_on_signal, group.cancel_scope)
        async with transport as (read_stream, write_stream):
            writes = lines.answer_through(write_stream)
            await server.run(read_stream, cast(Any, writes), server.create_initialization_options())
        group.cancel_scope.cancel()
    return stopped


def loopback_security(port: int) -> TransportSecuritySettings:
    """Host must be this loopback port; a browser Origin must be a loopback page."""
    from mcp.server.transport_security import TransportSecuritySettings

    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}"],
        allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"],
    )


#: What a request to ``/mcp`` without working credentials is told.
UNAUTHORIZED = (
    "missing or wrong credentials: send Authorization: Bearer <token> with the owner's token "
    "from $SPYGLASS_HOME/api-token (the file `spyglass config path` names) or a person's "
    f"token from `spyglass users api-token NAME`; {NEW_TOKEN} when one was replaced"
)


def http_app(runtime: Runtime, port: int) -> Starlette:
    """The Streamable HTTP ASGI app at ``/mcp`` for a server listening on ``port``; each
    request's calls are those of the person its credential signs in."""
    from spyglass.service.auth import Authenticator, AuthGate, load_or_create_token
    from spyglass.state.sessions import Sessions

    server = build_server(runtime, callers=from_request)
    app = server.streamable_http_app(
        streamable_http_path=MCP_PATH,
        host=LOOPBACK,
        transport_security=loopback_security(port),
    )
    # Bearer tokens only: a session store of its own that holds no console session, so the
    # console's cookie (sent by any loopback page's request) signs nobody in here.
    authenticator = Authenticator(
        load_or_create_token(runtime.paths.api_token_file),
        Sessions(),
        runtime.accounts,
        runtime.actors,
        unauthorized=UNAUTHORIZED,
    )
    app.add_middleware(AuthGate, authenticator=authenticator)
    return app


def bind_loopback(port: int) -> socket.socket:
    """A listening socket on 127.0.0.1 (port 0 picks a free one)."""
    # IPPROTO_TCP spelled out: asyncio turns Nagle's algorithm off only on sockets whose
    # ``proto`` says TCP, and a bare SOCK_STREAM socket reports 0. With Nagle on, each
    # single-write JSON response waited ~40 ms for the client's delayed ACK.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((LOOPBACK, port))
        # Listening before uvicorn starts means early clients wait in the backlog instead of
        # being refused, so "ready" can be announced as soon as this returns.
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    return sock


async def serve_http(
    runtime: Runtime,
    sock: socket.socket,
    *,
    ready: Callable[[str], None] | None = None,
) -> None:
    """Serve Streamable HTTP on an already bound loopback socket until stopped; each request
    must carry a credential (see :func:`http_app`)."""
    import uvicorn  # only the HTTP transport needs the server

    port = sock.getsockname()[1]
    app = http_app(runtime, port)
    config = uvicorn.Config(app, log_config=None, access_log=False, lifespan="on")
    server = uvicorn.Server(config)
    if ready is not None:
        ready(endpoint_url(port))
    await server.serve(sockets=[sock])
