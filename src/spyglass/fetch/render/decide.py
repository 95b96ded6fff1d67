"""Whether a statically fetched page is rendered, and the page ``web.fetch`` returns.

``fetch.render``: ``off`` returns the static read; ``auto`` renders only a page whose
static read looks like a script shell (:mod:`spyglass.fetch.render.detect`) and falls back
to the static read, with a note, when rendering is unavailable or fails; ``always`` renders
every HTML page and reports a failure as the call's error. Either way the rendered DOM goes
through the same extraction as a static page.
"""

from __future__ import annotations

import asyncio
import ssl
from dataclasses import replace

from spyglass.errors import CapabilityError
from spyglass.extract.document import HTML, MediaType, to_document
from spyglass.fetch.fetcher import FetchConfig, FetchedPage
from spyglass.fetch.render.detect import looks_like_shell
from spyglass.fetch.render.exchange import GuardedExchange
from spyglass.fetch.render.limits import RenderLimits
from spyglass.fetch.render.renderer import RENDER_UNAVAILABLE, render
from spyglass.fetch.render.report import Rendering
from spyglass.net.dialler import Dialler
from spyglass.net.resolver import Resolver

#: A static read with at least this much text is read: the detector is not even run.
READ_ENOUGH_CHARS = 2000
#: Markup shorter than this is judged on the event loop (well under a millisecond).
INLINE_MARKUP_CHARS = 100_000


def wanted(page: FetchedPage, mode: str) -> bool:
    """Whether ``page`` (a static read) should be rendered under ``fetch.render = mode``."""
    if mode == "off" or page.markup is None or page.content_type not in HTML:
        return False
    if mode == "always":
        return True
    if len(page.document.text) >= READ_ENOUGH_CHARS:
        return False
    return looks_like_shell(page.markup).shell


async def rendered_or_static(
    page: FetchedPage,
    mode: str,
    config: FetchConfig,
    limits: RenderLimits,
    resolver: Resolver,
    dialler: Dialler,
    ssl_context: ssl.SSLContext | None = None,
) -> FetchedPage:
    """``page`` rendered when ``mode`` and the page call for it, else ``page`` itself."""
    # Judging a page is CPU work: a large one is judged off the event loop, a small one
    # (most pages, and every page without a script) right here, where it costs less than
    # the hand-over to a thread would.
    small = page.markup is None or len(page.markup) < INLINE_MARKUP_CHARS
    if not (wanted(page, mode) if small else await asyncio.to_thread(wanted, page, mode)):
        return page
    assert page.markup is not None  # wanted() checked it
    exchange = GuardedExchange(
        url=page.final_url,
        document=page.markup.encode("utf-8"),
        guard=config.guard,
        limits=limits,
        resolver=resolver,
        dialler=dialler,
        user_agent=config.user_agent,
        ssl_context=ssl_context,
    )
    try:
        done = await render(exchange, limits)
    except CapabilityError as exc:
        if mode == "always":
            raise
        note = (
            "this page seems to need JavaScript, but no browser is available to render it; "
            "this is the page as sent, without its scripts"
            if exc.code == RENDER_UNAVAILABLE
            else f"this page seems to need JavaScript, but rendering it failed ({exc.message}); "
            "this is the page as sent, without its scripts"
        )
        # What the page did before the render ended still counts (a flood cut short).
        tally = exchange.tally
        cut = Rendering(False, requests=tally.sent, refused=tally.refused, note=note)
        return replace(page, rendering=cut)
    document = await asyncio.to_thread(
        to_document, done.html.encode("utf-8"), MediaType("text/html", "utf-8"), done.final_url
    )
    rendering = Rendering(
        True, done.other_hosts, done.tally.sent, done.tally.refused + done.escaped
    )
    return replace(page, document=document, final_url=done.final_url, rendering=rendering)
