"""``create_app``: the FastAPI application behind ``spyglass serve``."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Iterable
from typing import Any

from fastapi import FastAPI, Request
from fastapi.openapi.utils import get_openapi
from fastapi.responses import JSONResponse
from starlette.types import ASGIApp

from spyglass.capabilities import preload
from spyglass.conversation.pending import PendingTurnStore
from spyglass.conversation.turn import ConversationRunner
from spyglass.errors import StoreUnavailable
from spyglass.history.provenance import provenance_store
from spyglass.history.store import HistoryStore, NullHistory
from spyglass.llm.choice import ModelFinder
from spyglass.llm.client import ModelClient
from spyglass.providers.clients import PROVIDER_CLIENTS, ProviderClients
from spyglass.runtime import Runtime
from spyglass.service import errors
from spyglass.service.auth import Authenticator, AuthGate, load_or_create_token
from spyglass.service.middleware import BodyLimit, HostCheck, SecurityHeaders, allowed_hosts
from spyglass.service.routes import approvals as approvals_routes
from spyglass.service.routes import capabilities as capabilities_routes
from spyglass.service.routes import console as console_routes
from spyglass.service.routes import conversation as conversation_routes
from spyglass.service.routes import history as history_routes
from spyglass.service.routes import models as models_routes
from spyglass.service.routes import openwebui as openwebui_routes
from spyglass.service.routes import people as people_routes
from spyglass.service.routes import policy as policy_routes
from spyglass.service.state import ServiceState
from spyglass.version import __version__

logger = logging.getLogger(__name__)

PRUNE_INTERVAL_SECONDS = 24 * 3600
#: How often confirmations nobody answered are looked for, to audit their expiry even when
#: no later request comes.
SWEEP_INTERVAL_SECONDS = 15.0


def create_app(
    runtime: Runtime,
    *,
    port: int | None = None,
    extra_hosts: Iterable[str] = (),
    model: ModelClient | None = None,
    finder: ModelFinder | None = None,
    history: HistoryStore | None = None,
    pending: PendingTurnStore | None = None,
    api_token: str | None = None,
    sweep_seconds: float = SWEEP_INTERVAL_SECONDS,
) -> FastAPI:
    """Build the service for ``runtime``. ``port`` is the bound port (for the Host check);
    every ``sweep_seconds`` confirmations that expired unanswered are audited. ``finder``
    fills in the model server and model the owner left unset (one is made unless ``model``
    is given)."""
    # A service runs for long: it pays for the capabilities' implementations once, here,
    # rather than in the first call someone waits for.
    preload()
    settings = runtime.settings
    port = settings.server.port if port is None else port
    stores = runtime.stores
    if history is None:
        history = stores.history()
    if model is None:
        finder = finder or ModelFinder(settings.llm, memory=runtime.paths.model_choice_file)
        model = ModelClient(settings.llm, finder=finder)
    # A service keeps one connection per search provider instead of one per search; closed
    # with the service.
    runtime.seams.provide(PROVIDER_CLIENTS, ProviderClients())
    # The stores and the executor share one clock, so a paused turn and its token expire
    # together.
    pending = pending or stores.pending
    sessions = stores.sessions
    token = api_token or load_or_create_token(runtime.paths.api_token_file)
    authenticator = Authenticator(token, sessions, stores.accounts, runtime.actors)
    state = ServiceState(
        runtime=runtime,
        conversations=ConversationRunner(
            runtime.executor,
            model,
            history,
            pending,
            policy=runtime.policy,
            provenance=provenance_store(history),
        ),
        history=history,
        auth=authenticator,
        login_codes=stores.login_codes,
        sessions=sessions,
        accounts=stores.accounts,
        unrecorded=ConversationRunner(
            runtime.executor, model, NullHistory(), pending, policy=runtime.policy
        ),
        models=model.finder if isinstance(model.finder, ModelFinder) else None,
    )

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # Versioned migrations, under a lock, before the first request (several processes
        # may start at once).
        await asyncio.to_thread(stores.upgrade)
        if history.enabled:
            # Conversations from before accounts existed become the owner's, once per install.
            await state.accounts.adopt(lambda: _conversation_ids(history))
        pruner = asyncio.create_task(_prune_daily(history))
        sweeper = asyncio.create_task(_sweep_expired(runtime, sweep_seconds))
        try:
            yield
        finally:
            for task in (pruner, sweeper):
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
            await state.aclose()

    app = _SpyglassApp(
        title="Spyglass",
        version=__version__,
        description="Web search and fetch for a local AI assistant, with the owner's approval.",
        docs_url=None,
        redoc_url=None,
        lifespan=lifespan,
    )
    app.state.spyglass = state
    errors.install(app)
    app.add_exception_handler(StoreUnavailable, _store_unavailable)
    for module in (
        console_routes,
        conversation_routes,
        policy_routes,
        capabilities_routes,
        history_routes,
        models_routes,
        openwebui_routes,
        people_routes,
        approvals_routes,
    ):
        app.include_router(module.router)
    app.openapi = lambda: _openapi(app)  # type: ignore[method-assign]
    # Added innermost first: Host check, then auth, then body size. SecurityHeaders wraps
    # all of them and Starlette's error layer too (see _SpyglassApp).
    app.add_middleware(BodyLimit, limit=settings.server.max_body_bytes)
    app.add_middleware(AuthGate, authenticator=authenticator)
    hosts = allowed_hosts(
        settings.server.host, port, [*extra_hosts, *settings.server.allowed_hosts]
    )
    app.add_middleware(HostCheck, hosts=hosts)
    return app


class _SpyglassApp(FastAPI):
    """FastAPI with the security headers outside every other layer.

    ``add_middleware`` places a middleware inside Starlette's ServerErrorMiddleware, whose
    500 responses would then go out bare; wrapping the built stack puts the headers on
    every response, whichever layer produced it.
    """

    def build_middleware_stack(self) -> ASGIApp:
        return SecurityHeaders(super().build_middleware_stack())


def _openapi(app: FastAPI) -> dict[str, Any]:
    """The schema with the bearer scheme declared on every authenticated operation."""
    if app.openapi_schema:
        return app.openapi_schema
    schema = get_openapi(
        title=app.title, version=app.version, description=app.description, routes=app.routes
    )
    schema.setdefault("components", {})["securitySchemes"] = {
        "bearer": {"type": "http", "scheme": "bearer"}
    }
    for path, operations in schema.get("paths", {}).items():
        if path == "/api/v1/health":
            continue
        for operation in operations.values():
            operation["security"] = [{"bearer": []}]
    app.openapi_schema = schema
    return schema


async def _store_unavailable(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StoreUnavailable)
    logger.warning("%s", exc.message)
    return errors.error_response(
        503,
        "STORE_UNAVAILABLE",
        f"the {exc.store} state store cannot be reached; nothing was changed. Try again once "
        "it is back (GET /api/v1/health shows each store's state)",
    )


async def _conversation_ids(history: HistoryStore) -> list[str]:
    return [str(c["id"]) for c in await history.conversations()]


async def _prune_daily(history: HistoryStore) -> None:
    while True:
        await asyncio.sleep(PRUNE_INTERVAL_SECONDS)
        try:
            removed = await history.prune()
        except Exception:
            logger.exception("history pruning failed")
        else:
            if removed:
                logger.info("history: removed %d expired conversation(s)", removed)


async def _sweep_expired(runtime: Runtime, interval: float) -> None:
    while True:
        await asyncio.sleep(interval)
        try:
            await runtime.executor.sweep_expired()
        except Exception:
            logger.exception("auditing expired confirmations failed")
