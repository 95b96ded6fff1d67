"""Building the service for tests: fixture registry, fake model, in-process HTTP client."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI

from spyglass.paths import Paths
from spyglass.runtime import Runtime, build_runtime
from spyglass.service.app import create_app
from tests.support.fake_model import FakeModel
from tests.support.web import WEB_BASE, LoopbackWeb, fixture_registry

PORT = 8092
BASE_URL = f"http://127.0.0.1:{PORT}"


@dataclass
class Clock:
    """A monotonic clock tests move by hand."""

    now: float = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def fake_model() -> Iterator[FakeModel]:
    with FakeModel() as model:
        yield model


@pytest.fixture
def web() -> Iterator[LoopbackWeb]:
    with LoopbackWeb() as server:
        yield server


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def service_runtime(paths: Paths, fake_model: FakeModel, web: LoopbackWeb, clock: Clock) -> Runtime:
    runtime = build_runtime(
        paths,
        overrides={"llm.base_url": fake_model.base_url, "llm.model": "fake"},
        registry=fixture_registry(),
        clock=clock,
    )
    runtime.seams.provide(WEB_BASE, web.base_url)
    return runtime


@pytest.fixture
async def app(service_runtime: Runtime) -> AsyncIterator[FastAPI]:
    application = create_app(service_runtime, port=PORT)
    yield application
    # ASGITransport runs no lifespan: the service's owner here is this fixture, and it
    # closes what the service opened (model and provider connections, stores).
    await application.state.spyglass.aclose()


@pytest.fixture
def api_token(app: FastAPI) -> str:
    token: str = app.state.spyglass.auth.token
    return token


@pytest.fixture
async def client(app: FastAPI, api_token: str) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(
        transport=transport, base_url=BASE_URL, headers={"Authorization": f"Bearer {api_token}"}
    ) as http:
        yield http


@pytest.fixture
def web_on(service_runtime: Runtime) -> Runtime:
    service_runtime.policy.set("web_access_enabled", True)
    return service_runtime


def home_of(runtime: Runtime) -> Path:
    return runtime.paths.home
