"""The route dependencies that hand every route its service state and caller."""

from __future__ import annotations

import inspect
from collections.abc import Iterator, Sequence
from typing import Any

from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute

from spyglass.paths import Paths
from spyglass.runtime import build_runtime
from spyglass.service.app import create_app


def _routes(routes: Sequence[Any]) -> Iterator[APIRoute]:
    for route in routes:
        if isinstance(route, APIRoute):
            yield route
        # An included router keeps its own routes (FastAPI 0.165 wraps it, older ones copy).
        included = getattr(route, "original_router", None)
        if included is not None:
            yield from _routes(included.routes)


def _calls(dependant: Dependant) -> Iterator[Dependant]:
    for sub in dependant.dependencies:
        yield sub
        yield from _calls(sub)


async def test_no_route_dependency_leaves_the_event_loop_for_a_worker_thread(
    paths: Paths,
) -> None:
    # FastAPI runs a plain ``def`` dependency in its thread pool: two hand-offs to a worker
    # thread per request just to read two attributes, on every route.
    app = create_app(build_runtime(paths), port=8092)
    try:
        found = {
            sub.call.__qualname__: inspect.iscoroutinefunction(sub.call)
            for route in _routes(app.routes)
            for sub in _calls(route.dependant)
            if sub.call is not None
        }
    finally:
        await app.state.spyglass.history.close()
    assert {"service_state", "caller"} <= found.keys()
    assert [name for name, is_async in found.items() if not is_async] == []
