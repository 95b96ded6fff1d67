"""Finding Chromium, and the flags that keep it from reaching the network by itself.

The route handler (:mod:`spyglass.fetch.render.exchange`) answers every request Playwright
can intercept. What it cannot see (a WebSocket the page opens, a WebRTC probe, a DNS
prefetch, a request some future feature sends outside interception) must find no way out:
Chromium is given a proxy that is a local port accepting and closing every connection
(:class:`DeadEndProxy`), told to send loopback through that proxy too, to resolve no name
at all, to speak no QUIC and to send no UDP outside the proxy, and to run none of its
background services.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import os
import shutil
from pathlib import Path

#: Where Chromium usually is, in the order they are tried.
CANDIDATES = (
    "/usr/bin/chromium",
    "/usr/bin/chromium-browser",
    "/usr/bin/google-chrome",
    "/usr/bin/google-chrome-stable",
)
_ON_PATH = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")

#: Chromium switches for a contained render (besides the proxy, which needs a port).
CONTAINED_ARGS = (
    # Loopback is bypassed by default; ``<-loopback>`` sends it to the proxy as well.
    "--proxy-bypass-list=<-loopback>",
    # Every name fails to resolve inside Chromium: it never does a DNS lookup itself.
    "--host-resolver-rules=MAP * ~NOTFOUND",
    "--disable-quic",
    "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
    "--webrtc-ip-handling-policy=disable_non_proxied_udp",
    "--dns-prefetch-disable",
    "--disable-features=NetworkPrediction,DnsOverHttps,InterestFeedContentSuggestions,"
    "MediaRouter,OptimizationHints,AutofillServerCommunication,Translate,HttpsUpgrades,"
    "HttpsFirstBalancedModeAutoEnable,HttpsFirstModeV2ForEngagedSites",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-domain-reliability",
    "--disable-sync",
    "--disable-default-apps",
    "--disable-extensions",
    "--disable-breakpad",
    "--no-pings",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-gpu",
    "--mute-audio",
    "--deny-permission-prompts",
    "--disable-notifications",
)

#: Run in every frame before the page's own scripts: the WebRTC constructors are removed,
#: a third layer after the flags and the dead-end proxy.
NO_WEBRTC = """
for (const name of ["RTCPeerConnection", "webkitRTCPeerConnection", "RTCDataChannel"]) {
  try { delete window[name]; } catch (e) {}
  try { Object.defineProperty(window, name, {value: undefined, configurable: false}); }
  catch (e) {}
}
"""


def find_browser(configured: str = "") -> str | None:
    """The Chromium executable to use, or ``None`` when there is none.

    ``configured`` (``fetch.browser_path``) is used alone when set. Otherwise the usual
    places, then PATH; ``None`` then means "let Playwright use its own Chromium, if it has
    one installed".
    """
    if configured:
        path = Path(configured).expanduser()
        return str(path) if path.is_file() and os.access(path, os.X_OK) else None
    for candidate in CANDIDATES:
        if Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return candidate
    for name in _ON_PATH:
        found = shutil.which(name)
        if found:
            return found
    return None


def available(configured: str = "") -> bool:
    """Whether a render could start: Playwright is installed and a browser can be found
    (or, with nothing configured and none found, Playwright may have its own)."""
    if importlib.util.find_spec("playwright") is None:
        return False
    return find_browser(configured) is not None or not configured


def launch_args(max_heap_mb: int) -> list[str]:
    """The switches for one contained browser."""
    args = [*CONTAINED_ARGS, f"--js-flags=--max-old-space-size={max_heap_mb}"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        # Chromium's sandbox refuses to start as root; the containment above does not
        # depend on it, but running Spyglass as root gives up that layer (docs/fetch.md).
        args.append("--no-sandbox")
    return args


class DeadEndProxy:
    """A loopback TCP listener that accepts each connection and closes it at once.

    Chromium's proxy setting points here, so anything that escapes route interception ends
    in a closed connection; ``connections`` counts how many tried.
    """

    def __init__(self) -> None:
        self.connections = 0
        self._server: asyncio.Server | None = None

    @property
    def url(self) -> str:
        if self._server is None:
            raise RuntimeError("the dead-end proxy is not started")
        port = self._server.sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}"

    async def __aenter__(self) -> DeadEndProxy:
        self._server = await asyncio.start_server(self._close, "127.0.0.1", 0)
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await self._server.wait_closed()

    async def _close(self, _reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        writer.close()
        with contextlib.suppress(Exception):
            await writer.wait_closed()
