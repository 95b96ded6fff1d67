"""One render: the page's scripts run in a fresh context of the warm, contained browser.

The browser (:mod:`spyglass.fetch.render.host`) was launched with the switches of
:mod:`spyglass.fetch.render.browser`. Each render gets a new context with no stored state,
service workers blocked, downloads refused and no permissions, and
:class:`GuardedExchange` as the route handler of every request; WebSockets are closed
before they open. The render ends at the total deadline; a page over the element limit, or
whose tab crashed (the JavaScript heap limit), is not rendered.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from spyglass.errors import CapabilityError
from spyglass.fetch.render.browser import NO_WEBRTC, find_browser
from spyglass.fetch.render.exchange import GuardedExchange, Tally
from spyglass.fetch.render.host import HOST, LaunchFailed, LaunchKey, Warm
from spyglass.fetch.render.limits import RenderLimits
from spyglass.net import errors

if TYPE_CHECKING:
    from playwright.async_api import Browser, Dialog

logger = logging.getLogger(__name__)
T = TypeVar("T")

RENDER_UNAVAILABLE = "FETCH_RENDER_UNAVAILABLE"
RENDER_FAILED = "FETCH_RENDER_FAILED"
#: After the load event, wait this long at most for the page's requests to settle ...
SETTLE_SECONDS = 3.0
#: ... that is, for this long without a request in flight or a new one.
QUIET_SECONDS = 0.3
#: Closing a browser whose tab is stuck in a script must itself be bounded.
CLOSE_SECONDS = 5.0
#: Closing a render's context takes milliseconds unless the browser is wedged.
CONTEXT_CLOSE_SECONDS = 1.0
COUNT_ELEMENTS = "() => document.getElementsByTagName('*').length"


@dataclass(frozen=True)
class Rendered:
    """The DOM after the page's scripts ran, and what the page asked the network for."""

    html: str
    final_url: str
    tally: Tally
    other_hosts: tuple[str, ...]
    seconds: float
    #: Connections that reached the dead-end proxy (something route interception missed).
    escaped: int


def unavailable(why: str) -> CapabilityError:
    return CapabilityError(
        RENDER_UNAVAILABLE,
        f"the page needs a browser to be read, but {why}; install Chromium "
        "(apt-get install chromium) and the render extra (pip install 'spyglass[render]'), "
        "or set fetch.browser_path",
    )


def failed(why: str) -> CapabilityError:
    return CapabilityError(RENDER_FAILED, f"the page could not be rendered: {why}", retryable=True)


async def render(exchange: GuardedExchange, limits: RenderLimits) -> Rendered:
    """Render ``exchange.url`` (its document already read) within ``limits``.

    Raises :func:`unavailable` without a usable browser, :func:`failed` when the page
    crashed, ``TIMEOUT`` at the deadline and ``FETCH_TOO_LARGE`` past the element limit.
    The exchange is closed either way.
    """
    try:
        from playwright.async_api import Error as PlaywrightError
    except ImportError:
        await exchange.aclose()
        raise unavailable("Playwright is not installed") from None
    executable = find_browser(limits.browser_path)
    if executable is None and limits.browser_path:
        await exchange.aclose()
        raise unavailable(f"fetch.browser_path ({limits.browser_path[:200]}) is not a program")
    started = time.monotonic()
    deadline = started + limits.timeout_seconds

    async def job(warm: Warm) -> tuple[str, str, int]:
        # Runs on the host's loop, where the exchange's client is used and closed.
        before = warm.proxy.connections
        try:
            async with asyncio.timeout_at(_loop_time(deadline)):
                html, final_url = await _run(warm.browser, exchange, limits)
        finally:
            await exchange.aclose()
        return html, final_url, warm.proxy.connections - before

    try:
        async with asyncio.timeout_at(_loop_time(deadline + CLOSE_SECONDS)):
            html, final_url, escaped = await HOST.run(
                LaunchKey(executable, limits.max_heap_mb), job
            )
    except TimeoutError:
        raise errors.timeout(limits.timeout_seconds) from None
    except LaunchFailed:
        raise unavailable("no browser could be started") from None
    except PlaywrightError as exc:
        logger.info("render failed: %s", str(exc).splitlines()[0][:200] if str(exc) else exc)
        raise failed(_describe(exc)) from None
    return Rendered(
        html=html,
        final_url=final_url,
        tally=exchange.tally,
        other_hosts=tuple(exchange.other_hosts),
        seconds=time.monotonic() - started,
        escaped=escaped,
    )


def _loop_time(deadline: float) -> float:
    # time.monotonic and the event loop's clock are the same clock on CPython's default loop.
    loop = asyncio.get_running_loop()
    return loop.time() + (deadline - time.monotonic())


async def _run(
    browser: Browser, exchange: GuardedExchange, limits: RenderLimits
) -> tuple[str, str]:
    context = await browser.new_context(
        service_workers="block",
        accept_downloads=False,
        java_script_enabled=True,
        permissions=[],
        user_agent=None,
    )
    try:
        await context.add_init_script(NO_WEBRTC)
        await context.route("**/*", exchange.handle)
        await context.route_web_socket("**/*", exchange.refuse_socket)
        page = await context.new_page()
        page.on("dialog", _dismiss)
        crashed: asyncio.Future[bool] = asyncio.get_running_loop().create_future()

        def on_crash(_page: object) -> None:
            if not crashed.done():
                crashed.set_result(True)

        page.on("crash", on_crash)
        await _until_crash(page.goto(exchange.url, wait_until="load", timeout=0), crashed)
        await _until_crash(exchange.settled(QUIET_SECONDS, SETTLE_SECONDS), crashed)
        if not page.url.lower().startswith(("http://", "https://")):
            # The page navigated away to an address that was refused (or to about: or data:):
            # what the tab shows now is Chromium's error page or nothing of the site's.
            raise failed("the page navigated to an address that cannot be read")
        nodes = await _until_crash(page.evaluate(COUNT_ELEMENTS), crashed)
        if int(nodes) > limits.max_dom_nodes:
            raise CapabilityError(
                errors.TOO_LARGE,
                f"the rendered page has more than {limits.max_dom_nodes:,} elements "
                "(fetch.render_max_dom_nodes); it was not read",
            )
        html = await _until_crash(page.content(), crashed)
        return str(html), page.url
    finally:
        # A wedged browser never answers the close; the deadline's kill (host) ends it then.
        with contextlib.suppress(Exception):
            async with asyncio.timeout(CONTEXT_CLOSE_SECONDS):
                await context.close()


async def _until_crash(work: Awaitable[T], crashed: asyncio.Future[bool]) -> T:
    """``work``, unless the tab crashes first: a crashed tab never answers."""
    task = asyncio.ensure_future(work)
    # However this ends (a crash, the render's deadline), the work's own outcome is read,
    # so an abandoned call never reports "exception was never retrieved".
    task.add_done_callback(_consume)
    try:
        waiting: set[asyncio.Future[Any]] = {task, crashed}
        await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
    finally:
        if not task.done():
            task.cancel()
    if task.done() and not task.cancelled():
        return task.result()
    raise failed("the page's tab crashed (it may have needed more memory than allowed)")


def _consume(task: asyncio.Future[Any]) -> None:
    if not task.cancelled():
        task.exception()


async def _dismiss(dialog: Dialog) -> None:
    with contextlib.suppress(Exception):
        await dialog.dismiss()


def _describe(exc: Exception) -> str:
    text = str(exc).lower()
    if "crash" in text or "target closed" in text or "has been closed" in text:
        return "the browser tab crashed or closed (it may have needed more memory than allowed)"
    return "the browser reported an error"
