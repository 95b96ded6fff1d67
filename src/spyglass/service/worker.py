"""The application factory each ``spyglass serve --workers N`` process calls.

The parent binds the socket, then passes what the flags changed through the environment
(``SPYGLASS_SERVER__HOST`` and ``SPYGLASS_SERVER__PORT`` with the bound port), so every worker
loads the same settings and opens the same stores: embedded state in ``state.db`` under the
one ``SPYGLASS_HOME``, or the shared Redis and PostgreSQL.
"""

from __future__ import annotations

from fastapi import FastAPI

from spyglass.runtime import build_runtime
from spyglass.service.app import create_app


def url_host(host: str) -> str:
    if host in ("0.0.0.0", "::"):  # noqa: S104 - comparing, not binding
        return "127.0.0.1"
    return f"[{host}]" if ":" in host else host


def create() -> FastAPI:
    runtime = build_runtime()
    settings = runtime.settings
    return create_app(
        runtime, port=settings.server.port, extra_hosts=[url_host(settings.server.host)]
    )
