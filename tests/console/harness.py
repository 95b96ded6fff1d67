"""The real service on a loopback port, for the browser tests.

``ConsoleServer`` runs the production app (``create_app``) under a real uvicorn in a thread,
bound to 127.0.0.1 on an ephemeral port, with a runtime whose clock the test controls so a
confirmation can expire without waiting two minutes.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections.abc import Coroutine, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

import uvicorn
from playwright.sync_api import Page

from spyglass.core.confirmation import InMemoryConfirmationStore
from spyglass.core.policy import WEB_ACCESS
from spyglass.llm.choice import ModelFinder
from spyglass.llm.discovery import LocalServer
from spyglass.paths import Paths
from spyglass.runtime import Runtime, build_runtime
from spyglass.service.app import create_app
from tests.support.fetch_peers import Route, page

T = TypeVar("T")

START_DEADLINE_SECONDS = 10.0
SCREENSHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"


def screenshot(tab: Page, name: str) -> Path:
    """Save a screenshot of a state as a test artifact under artifacts/screenshots/."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    target = SCREENSHOTS / f"{name}.png"
    tab.screenshot(path=str(target))
    return target


class ManualClock:
    """Monotonic time plus an offset the test can push forward."""

    def __init__(self) -> None:
        self.offset = 0.0

    def __call__(self) -> float:
        return time.monotonic() + self.offset

    def advance(self, seconds: float) -> None:
        self.offset += seconds


@dataclass
class SearchResult:
    title: str
    url: str
    content: str


def searxng_route(results: Sequence[SearchResult]) -> Route:
    """A SearXNG ``/search?format=json`` answer with these results."""
    body = {
        "query": "",
        "results": [
            {"title": r.title, "url": r.url, "content": r.content, "engine": "test"}
            for r in results
        ],
        "unresponsive_engines": [],
    }
    return page(json.dumps(body), "application/json")


def run_coroutine(coroutine: Coroutine[Any, Any, T]) -> T:
    """Await ``coroutine`` from synchronous test code, even where Playwright runs a loop."""
    results: list[T] = []
    thread = threading.Thread(target=lambda: results.append(asyncio.run(coroutine)))
    thread.start()
    thread.join(30)
    assert results, "the coroutine did not finish within 30 s"
    return results[0]


class ConsoleServer:
    """``create_app`` under uvicorn on 127.0.0.1:<ephemeral>, in a background thread."""

    def __init__(
        self,
        paths: Paths,
        overrides: dict[str, Any],
        *,
        web_access: bool,
        servers: Sequence[LocalServer] | None = None,
    ) -> None:
        self.clock = ManualClock()
        self.runtime: Runtime = build_runtime(
            paths,
            overrides=overrides,
            confirmations=InMemoryConfirmationStore(clock=self.clock),
            # Tokens and paused turns share this clock, so advancing it expires both.
            clock=self.clock,
        )
        self.runtime.policy.set(WEB_ACCESS, web_access)
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._socket.bind(("127.0.0.1", 0))
        self.port = int(self._socket.getsockname()[1])
        # ``servers``: the local model servers looked for when the model is not set.
        finder = (
            None
            if servers is None
            else ModelFinder(
                self.runtime.settings.llm,
                servers=servers,
                memory=self.runtime.paths.model_choice_file,
            )
        )
        self.app = create_app(self.runtime, port=self.port, finder=finder)
        config = uvicorn.Config(
            self.app, log_level="warning", lifespan="on", timeout_graceful_shutdown=3
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [self._socket]}, daemon=True
        )

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def login_url(self) -> str:
        """A fresh one-time console link, as ``spyglass serve`` prints it."""
        code = run_coroutine(self.app.state.spyglass.login_codes.issue())
        return f"{self.base_url}/login?code={code}"

    def __enter__(self) -> ConsoleServer:
        self._thread.start()
        deadline = time.monotonic() + START_DEADLINE_SECONDS
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the Spyglass service did not start within 10 s")
            time.sleep(0.02)  # polling the started flag, with the deadline above
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        # Safe to call twice: a test may stop the service before its fixture does.
        self._server.should_exit = True
        self._thread.join(timeout=10)
        self._socket.close()
