"""A service to research with, end to end: the HTTP app on a fresh runtime, a SearXNG-shaped
replay server for ``web.search``, pages behind an injected public name for ``web.fetch``, an
attacker's site behind another, and a fake model speaking the OpenAI wire protocol.

Used by the flagged-approval tests (``tests/service/test_flagged.py``) and
``bench/approvals.py``: both put a research turn and an injected page through the same service.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import httpx

from spyglass.core.policy import WEB_ACCESS
from spyglass.paths import Paths
from spyglass.runtime import Runtime, build_runtime
from spyglass.service.app import create_app
from tests.search.replay import ReplayServer, Reply
from tests.support.fake_model import FakeModel
from tests.support.fetch_peers import Peer, page, serve_public
from tests.support.service import BASE_URL, PORT

DOCS = "docs.example.org"
ATTACKER = "attacker.example.com"
#: The person's own word the privacy check watches for (``privacy.personal_terms``).
PERSONAL_TERM = "Quillfeather"


@dataclass
class Research:
    """The service and everything it talks to."""

    http: httpx.AsyncClient
    runtime: Runtime
    search: ReplayServer
    docs: Peer
    attacker: Peer

    def searched(self) -> list[str]:
        """Every query the search provider received, in order."""
        return [r.query["q"][0] for r in self.search.requests]


@asynccontextmanager
async def research_service(
    paths: Paths,
    model: Callable[[dict[str, Any]], Any],
    *,
    results: dict[str, Any],
    docs: dict[str, Any],
    modes: dict[str, str],
    clock: Callable[[], float] = time.time,
) -> AsyncIterator[Research]:
    """The service with web access on and each capability's approval mode in ``modes``;
    ``results`` is what the search provider answers, ``docs`` the pages of :data:`DOCS`."""
    with (
        ReplayServer() as search,
        Peer(docs) as pages,
        Peer({"/": page("thanks")}) as attacker,
        FakeModel(default=model) as fake,
    ):
        search.set("/search", Reply(body=results))
        overrides = {
            "llm.base_url": fake.base_url,
            "llm.model": "fake",
            "search.providers": "searxng",
            "search.searxng.base_url": search.url,
            "fetch.render": "off",
            "privacy.personal_terms": [PERSONAL_TERM],
        }
        runtime = build_runtime(paths, overrides=overrides, clock=clock)
        runtime.policy.set(WEB_ACCESS, True)
        for name, mode in modes.items():
            runtime.policy.set_approval(name, mode)
        serve_public(runtime.seams, {DOCS: pages, ATTACKER: attacker})
        app = create_app(runtime, port=PORT)
        headers = {"Authorization": f"Bearer {app.state.spyglass.auth.token}"}
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url=BASE_URL, headers=headers) as c:
            yield Research(c, runtime, search, pages, attacker)
        await app.state.spyglass.aclose()
