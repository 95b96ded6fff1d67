"""Whether a statically fetched page is rendered, and what rendering it gave.

``fetch.render``: ``off`` returns the static read; ``auto`` renders only a page whose
static read looks like a script shell (:mod:`spyglass.fetch.render.detect`) and falls back
to the static read, with a note, when rendering is unavailable or fails; ``always`` renders
every HTML page and reports a failure as the call's error. Either way ``web.fetch`` reads
the rendered DOM through the same extraction as a static page.
"""

from __future__ import annotations

import asyncio
import ssl
from dataclasses import dataclass

from spyglass.errors import CapabilityError
from spyglass.extract.decode import decode
from spyglass.extract.document import HTML
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
#: A page of fewer bytes than this is judged on the event loop (well under a millisecond).
INLINE_MARKUP_BYTES = 100_000


@dataclass(frozen=True)
class RenderOutcome:
    """What rendering a page gave: what to say about it, and the DOM to read if it rendered."""

    rendering: Rendering
    #: The DOM after the page's scripts ran; ``None`` when the static read stands.
    html: str | None = None
    #: Where the rendered page ended up (its scripts may have navigated).
    final_url: str | None = None


def markup(page: FetchedPage) -> str:
    """The page's HTML source, decoded as extraction decodes it."""
    return decode(page.body, page.media.charset, markup=True)


def wanted(page: FetchedPage, static_chars: int, mode: str) -> bool:
    """Whether ``page`` should be rendered under ``fetch.render = mode``, given that its
    static read gave ``static_chars`` characters of text."""
    if mode == "off" or page.media.essence not in HTML:
        return False
    if mode == "always":
        return True
    if static_chars >= READ_ENOUGH_CHARS:
        return False
    return looks_like_shell(markup(page)).shell


async def rendered(
    page: FetchedPage,
    static_chars: int,
    mode: str,
    config: FetchConfig,
    limits: RenderLimits,
    resolver: Resolver,
    dialler: Dialler,
    ssl_context: ssl.SSLContext | None = None,
) -> RenderOutcome | None:
    """``page`` rendered when ``mode`` and the page call for it; ``None`` when not wanted."""
    # Judging a page is CPU work: a large one is judged off the event loop, a small one
    # (most pages, and every page without a script) right here, where it costs less than
    # the hand-over to a thread would.
    small = page.media.essence not in HTML or len(page.body) < INLINE_MARKUP_BYTES
    arguments = (page, static_chars, mode)
    if not (wanted(*arguments) if small else await asyncio.to_thread(wanted, *arguments)):
        return None
    exchange = GuardedExchange(
        url=page.final_url,
        document=markup(page).encode("utf-8"),
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
        return RenderOutcome(cut)
    rendering = Rendering(
        True, done.other_hosts, done.tally.sent, done.tally.refused + done.escaped
    )
    return RenderOutcome(rendering, done.html, done.final_url)
