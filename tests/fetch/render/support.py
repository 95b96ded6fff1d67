"""Script-built pages served by loopback peers, and a static-then-render helper."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from spyglass.capabilities.fetch import read, read_rendered
from spyglass.fetch.fetcher import FetchConfig, Fetcher
from spyglass.fetch.page import ReadPage
from spyglass.fetch.render.limits import RenderLimits
from tests.support.fetch_peers import MappedDialler, Peer, StaticResolver, page

CHROMIUM = Path("/usr/bin/chromium")
needs_browser = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="Debian's Chromium is not installed at /usr/bin/chromium "
    "(apt-get install -y chromium; .ci/run does)",
)

SENTENCE = "Sea otters crack open shellfish with rocks they keep in a pouch under their forelegs."
#: A shell whose article exists only once /app.js has run.
SHELL = (
    "<!doctype html><html><head><title>Otters</title></head><body>"
    '<div id="root"></div>'
    "<noscript>You need to enable JavaScript to run this app.</noscript>"
    '<script src="/app.js"></script></body></html>'
)
APP_JS = (
    "const root = document.getElementById('root');"
    "const article = document.createElement('article');"
    "article.innerHTML = '<h1>How otters use tools</h1>' + "
    "[1,2,3,4,5,6].map(n => '<p>Paragraph ' + n + ': " + SENTENCE + "</p>').join('');"
    "root.appendChild(article);"
)


def script(source: str) -> object:
    return page(source, "text/javascript; charset=utf-8")


def shell_with(js: str) -> str:
    """A shell page whose only script is ``js``, inline."""
    return (
        '<!doctype html><html><head><title>Shell</title></head><body><div id="root"></div>'
        f"<script>{js}</script></body></html>"
    )


@dataclass
class Site:
    """Names that resolve to public-looking addresses leading to loopback peers."""

    resolver: StaticResolver
    dialler: MappedDialler

    @classmethod
    def of(cls, peers: dict[str, Peer]) -> Site:
        answers: dict[str, list[str]] = {}
        routes: dict[str, tuple[str, int]] = {}
        for number, (name, peer) in enumerate(peers.items()):
            address = f"93.184.215.{10 + number}"
            answers[name] = [address]
            routes[address] = peer.address
        return cls(StaticResolver(answers), MappedDialler(routes))

    async def read(
        self,
        url: str,
        mode: str = "auto",
        limits: RenderLimits | None = None,
        config: FetchConfig | None = None,
    ) -> ReadPage:
        """The page as ``web.fetch`` reads it: downloaded, read, and rendered if need be."""
        config = config or FetchConfig()
        async with Fetcher(config, self.resolver, self.dialler) as fetcher:
            fetched = await fetcher.fetch(url)
        static = await read(fetched)
        if mode == "off":
            return static
        # A generous deadline: a loaded CI machine must not turn a render into a fallback.
        limits = limits or RenderLimits(timeout_seconds=60)
        return await read_rendered(
            fetched, static, mode, config, limits, self.resolver, self.dialler
        )
