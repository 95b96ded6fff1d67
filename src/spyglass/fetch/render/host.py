"""One contained Chromium per process, kept warm between renders on a thread of its own.

Starting Playwright's driver and Chromium costs more than a render itself, and every
``web.fetch`` call runs on an event loop of its own (``Executor.invoke``), so a browser
cannot simply be kept on the caller's loop. :class:`BrowserHost` keeps Playwright and one
browser on a private event loop in a daemon thread; a render is submitted to that loop and
awaited from the caller's. The isolation unit is the browser *context*: each render gets a
new one (no storage, no cookies, its own route handler) and closes it. The browser is
launched on first use with the contained switches and the dead-end proxy
(:mod:`spyglass.fetch.render.browser`), launched again when it disconnected (a crash) or
when the settings it was launched with changed, and closed after a while without renders
and when the process exits.

A page can wedge the browser itself (a script calling ``history.pushState`` millions of times
floods the browser process): a render that reaches its deadline kills the browser's whole
process group instead of keeping it warm, and a warm browser must answer a probe within
:data:`PROBE_SECONDS` before it is given to the next render (else it is killed and launched
again).
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import logging
import os
import secrets
import signal
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from spyglass.errors import UpstreamError
from spyglass.fetch.render.browser import DeadEndProxy, launch_args

if TYPE_CHECKING:
    from playwright.async_api import Browser, Playwright

logger = logging.getLogger(__name__)
T = TypeVar("T")

#: A browser with no render for this long is closed (it holds a few hundred MB).
IDLE_SECONDS = 120.0
CLOSE_SECONDS = 5.0
#: A warm browser that does not answer a protocol round trip within this is wedged.
PROBE_SECONDS = 2.0
#: A switch Chromium ignores, naming one launch, so its process can be found (and killed).
_MARKER = "--spyglass-browser="


class LaunchFailed(UpstreamError):
    """No browser could be started with this executable."""


@dataclass(frozen=True)
class LaunchKey:
    """What a browser was launched with; a render asking for other values gets a new one."""

    executable: str | None
    max_heap_mb: int


@dataclass(frozen=True)
class Warm:
    """The host's browser and its dead-end proxy, as a render sees them."""

    browser: Browser
    proxy: DeadEndProxy


class BrowserHost:
    """Runs render jobs against one warm, contained browser on a private event loop."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._started = threading.Lock()
        self._playwright: Playwright | None = None
        self._browser: Browser | None = None
        self._proxy: DeadEndProxy | None = None
        self._key: LaunchKey | None = None
        self._launching: asyncio.Lock | None = None
        self._pid: int | None = None
        self._active = 0
        self._last_used = time.monotonic()
        self._idle: asyncio.TimerHandle | None = None
        #: Browsers launched so far (one per process while settings stay the same).
        self.launches = 0

    @property
    def browser_pid(self) -> int | None:
        """The warm browser's process id (its process group's), where it could be found."""
        return self._pid if self._browser is not None else None

    async def run(self, key: LaunchKey, job: Callable[[Warm], Awaitable[T]]) -> T:
        """Run ``job`` on the host's loop with a browser launched for ``key``.

        Cancelling the caller cancels the job (whose own ``finally`` closes its context).
        Raises :class:`LaunchFailed` when no browser can be started.
        """
        loop = self._ensure_loop()
        future = asyncio.run_coroutine_threadsafe(self._run(key, job), loop)
        try:
            return await asyncio.wrap_future(future)
        except asyncio.CancelledError:
            future.cancel()
            raise

    def close(self) -> None:
        """Close the browser and stop the loop (at exit; a later render starts again)."""
        loop, thread = self._loop, self._thread
        if loop is None or thread is None or loop.is_closed():
            return
        with contextlib.suppress(Exception):
            asyncio.run_coroutine_threadsafe(self._shutdown(), loop).result(CLOSE_SECONDS * 2)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=CLOSE_SECONDS)
        self._loop = self._thread = None

    def _ensure_loop(self) -> asyncio.AbstractEventLoop:
        with self._started:
            if self._loop is None or self._thread is None or not self._thread.is_alive():
                loop = asyncio.new_event_loop()
                ready = threading.Event()

                def serve() -> None:
                    asyncio.set_event_loop(loop)
                    loop.call_soon(ready.set)
                    try:
                        loop.run_forever()
                    finally:
                        loop.close()

                thread = threading.Thread(target=serve, name="spyglass-browser", daemon=True)
                thread.start()
                ready.wait(timeout=10)
                self._loop, self._thread = loop, thread
            return self._loop

    async def _run(self, key: LaunchKey, job: Callable[[Warm], Awaitable[T]]) -> T:
        warm = await self._browser_for(key)
        self._active += 1
        try:
            return await job(warm)
        except TimeoutError:
            # The render reached its deadline: whatever the page did may still hold the
            # browser, so it is killed rather than handed to the next render.
            self._kill(warm.browser)
            raise
        finally:
            self._active -= 1
            self._last_used = time.monotonic()
            self._schedule_idle_close()

    async def _browser_for(self, key: LaunchKey) -> Warm:
        if self._launching is None:
            self._launching = asyncio.Lock()
        async with self._launching:
            browser = self._browser
            if browser is not None and browser.is_connected() and self._key == key:
                assert self._proxy is not None
                if await _answers(browser):
                    return Warm(browser, self._proxy)
                logger.info("the warm browser did not answer; launching another")
                self._kill(browser)
            # Gone (a crash), or launched for other settings: a render still using the old
            # one fails and says so; the settings changed under it.
            await self._shutdown()
            return await self._launch(key)

    async def _launch(self, key: LaunchKey) -> Warm:
        from playwright.async_api import Error as PlaywrightError
        from playwright.async_api import async_playwright

        if self._playwright is None:
            self._playwright = await async_playwright().start()
        if self._proxy is None:
            self._proxy = DeadEndProxy()
            await self._proxy.__aenter__()
        marker = _MARKER + secrets.token_hex(8)
        try:
            browser = await self._playwright.chromium.launch(
                executable_path=key.executable,
                headless=True,
                args=[*launch_args(key.max_heap_mb), marker],
                proxy={"server": self._proxy.url},
                handle_sigint=False,
                handle_sigterm=False,
                handle_sighup=False,
            )
        except PlaywrightError as exc:
            logger.info("browser launch failed: %s", str(exc).splitlines()[0][:200])
            raise LaunchFailed from None
        self._browser, self._key = browser, key
        self._pid = _group_leader(marker)
        self.launches += 1
        return Warm(browser, self._proxy)

    def _schedule_idle_close(self) -> None:
        if self._idle is not None:
            self._idle.cancel()
        loop = asyncio.get_running_loop()
        self._idle = loop.call_later(IDLE_SECONDS, lambda: loop.create_task(self._close_idle()))

    async def _close_idle(self) -> None:
        idle = time.monotonic() - self._last_used >= IDLE_SECONDS - 1
        if self._active == 0 and idle and self._launching is not None:
            async with self._launching:
                await self._shutdown()

    def _kill(self, browser: Browser) -> None:
        """Kill ``browser``'s process group now, if it is still the host's browser."""
        if browser is not self._browser:
            return
        pid, self._pid, self._browser, self._key = self._pid, None, None, None
        if pid is not None:
            # Playwright starts the browser as the leader of a process group of its own, so
            # the group is the browser with its renderers, GPU and utility processes.
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pid, signal.SIGKILL)
            return
        # Not found (not Linux): closing is the best left, bounded, off the render's path.
        asyncio.get_running_loop().create_task(_close_quietly(browser))

    async def _shutdown(self) -> None:
        browser, self._browser, self._key, self._pid = self._browser, None, None, None
        if browser is not None:
            with contextlib.suppress(Exception):
                async with asyncio.timeout(CLOSE_SECONDS):
                    await browser.close()
        playwright, self._playwright = self._playwright, None
        if playwright is not None:
            with contextlib.suppress(Exception):
                async with asyncio.timeout(CLOSE_SECONDS):
                    await playwright.stop()
        proxy, self._proxy = self._proxy, None
        if proxy is not None:
            await proxy.__aexit__(None, None, None)


async def _answers(browser: Browser) -> bool:
    """Whether ``browser`` answers a round trip to its own process within PROBE_SECONDS."""
    try:
        async with asyncio.timeout(PROBE_SECONDS):
            session = await browser.new_browser_cdp_session()
            await session.send("Browser.getVersion")
            await session.detach()
    except Exception:  # any failure means it cannot be trusted with a render
        return False
    return True


async def _close_quietly(browser: Browser) -> None:
    with contextlib.suppress(Exception):
        async with asyncio.timeout(CLOSE_SECONDS):
            await browser.close()


def _group_leader(marker: str) -> int | None:
    """The process started with ``marker`` that leads its own process group (Linux)."""
    proc = "/proc"
    if not os.path.isdir(proc):
        return None
    needle = marker.encode()
    for entry in os.listdir(proc):
        if not entry.isdigit():
            continue
        try:
            with open(f"{proc}/{entry}/cmdline", "rb") as file:
                arguments = file.read().split(b"\0")
            pid = int(entry)
            if needle in arguments and os.getpgid(pid) == pid:
                return pid
        except (OSError, ValueError):
            continue
    return None


#: The process's one host.
HOST = BrowserHost()
atexit.register(HOST.close)
