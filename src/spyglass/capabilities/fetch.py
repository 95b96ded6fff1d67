"""``web.fetch``: read one public web page as Markdown, in parts, behind the SSRF guard.

The capability downloads (:class:`~spyglass.fetch.fetcher.Fetcher`: the page's bytes and
media type), then reads what it downloaded through :func:`spyglass.extract.to_document`
(:func:`read`), and the rendered DOM too when the page is rendered (:func:`read_rendered`).
What the approving person is told about a page read, and why one asks under the ``flagged``
rule, is :mod:`spyglass.capabilities.fetch_notices`.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from spyglass.capabilities.fetch_notices import (
    DIRECT,
    recipient,
    render_check,
    unusual,
)
from spyglass.core.capability import JSON, Bounds, Capability, Network, SideEffect
from spyglass.core.context import InvocationContext
from spyglass.core.outcome import Notice
from spyglass.core.policy import WEB_ACCESS
from spyglass.errors import StoreUnavailable
from spyglass.net import MAX_URL_CHARS
from spyglass.state.pages import PAGE_CACHE

if TYPE_CHECKING:
    import ssl

    from spyglass.extract.document import Document, MediaType
    from spyglass.fetch.fetcher import FetchConfig, FetchedPage
    from spyglass.fetch.page import ReadPage
    from spyglass.fetch.paging import Part
    from spyglass.fetch.render.limits import RenderLimits
    from spyglass.fetch.robots import RobotsRules
    from spyglass.net.dialler import Dialler
    from spyglass.net.resolver import Resolver
    from spyglass.settings import Settings

MIN_CHARS = 500
MAX_CHARS = 100_000
#: The longest ``focus``: a question or a few key terms, not a document.
MAX_FOCUS_CHARS = 500
#: Turn-cache keys: extracted pages by URL, and robots.txt rules by robots URL.
PAGES_KEY = "web.fetch/pages"
ROBOTS_KEY = "web.fetch/robots"
#: Which provider delivered each cached page, by URL.
PROVIDERS_KEY = "web.fetch/providers"
NAME = "web.fetch"

ARGUMENTS: JSON = {
    "type": "object",
    "properties": {
        "url": {
            "type": "string",
            "minLength": 1,
            "maxLength": MAX_URL_CHARS,
            "description": "The http or https address of the page to read.",
        },
        "offset": {
            "type": "integer",
            "minimum": 0,
            "default": 0,
            "description": "Character offset to start from; use next_offset of the previous part.",
        },
        "max_chars": {
            "type": "integer",
            "minimum": MIN_CHARS,
            "maximum": MAX_CHARS,
            "description": "Largest part to return, in characters (default set by the owner).",
        },
        "focus": {
            "type": "string",
            "minLength": 1,
            "maxLength": MAX_FOCUS_CHARS,
            "description": (
                "What you want to find on the page: a question or key terms. The result is "
                "then an outline of the page and the passages that answer best, each marked "
                "with its offset, instead of the page from the top. Use it for a long page "
                "and a specific question. It stays on this device."
            ),
        },
    },
    "required": ["url"],
    "additionalProperties": False,
}

RESULT: JSON = {
    "type": "object",
    "properties": {
        "url": {"type": "string"},
        "final_url": {"type": "string"},
        "status": {"type": "integer"},
        "content_type": {"type": "string"},
        "title": {"type": "string"},
        "text": {"type": "string"},
        "offset": {"type": "integer", "minimum": 0},
        "next_offset": {"type": "integer", "minimum": 1},
        "total_chars": {"type": "integer", "minimum": 0},
        "truncated": {"type": "boolean"},
        "redirected": {"type": "boolean"},
        "redirect_chain": {"type": "array", "items": {"type": "string"}},
        "retrieved_at": {"type": "string"},
        "cut_at_bytes": {"type": "integer", "minimum": 1},
        "provider": {
            "type": "string",
            "description": '"direct" when Spyglass read the page, else the hosted reader that did',
        },
        "rendered": {
            "type": "boolean",
            "description": "true when the page's scripts ran in Spyglass's contained browser",
        },
        "contacted_hosts": {
            "type": "array",
            "items": {"type": "string"},
            "description": "Hosts other than the page's own that the rendered page contacted",
        },
        "requests_refused": {
            "type": "integer",
            "minimum": 0,
            "description": "Requests of the rendered page that were refused or not loaded",
        },
        "note": {
            "type": "string",
            "description": "Something the reader should know about how the page was read",
        },
        "left_out_chars": {
            "type": "integer",
            "minimum": 0,
            "description": "With focus: characters of the page not in text",
        },
    },
    "required": [
        "url",
        "final_url",
        "status",
        "content_type",
        "text",
        "offset",
        "total_chars",
        "truncated",
        "redirected",
        "retrieved_at",
    ],
    "additionalProperties": False,
}


async def precheck(context: InvocationContext) -> Sequence[Notice]:
    """Every rule that needs no network, before anyone is asked to approve.

    Names the hosted reader that will see the URL, if one will. When Spyglass may fetch the
    page itself, the same :class:`~spyglass.net.guard.Guard` the fetcher runs on every hop
    checks it here; DNS answers and the connected peer only the fetch itself can check.
    """
    url = sent(context)
    if await _cached(context, url) is not None:
        # Later parts of a page read this turn come from the cache: nothing is sent anywhere.
        return []
    order, notices = route(context, url)
    if DIRECT in order:
        # The guard's rules and address tables load here: a call refused by validation or
        # policy never gets this far, and does not pay for them.
        from spyglass.net.guard import guard_for
        from spyglass.net.private import NOTICE_KIND, NOTICE_MESSAGE

        target = guard_for(context.settings.fetch).check(url)
        if target.private:
            notices = [Notice(NOTICE_KIND, NOTICE_MESSAGE, argument="url"), *notices]
    # Then where the URL came from (provenance mode) and what it would carry (privacy): the
    # detectors load only for a URL the guard let through.
    from spyglass.privacy import check, provenance

    notices = [*notices, *await provenance.check_fetch(context)]
    notices += await check.check_url(context)
    if DIRECT in order:
        notices += render_check(context.settings.fetch)
    return [recipient(order[0]), *notices]


def sent(context: InvocationContext) -> str:
    """The URL this call sends anywhere (:func:`spyglass.privacy.provenance.address`): the
    approved URL in its source's spelling and without its fragment. Everything downstream (the
    guard, the route, the fetcher, the renderer, a hosted reader, the page cache) gets this
    one, so no path can carry what the model added to the spelling."""
    from spyglass.privacy import provenance

    return provenance.address(context, context.arguments["url"])


def route(context: InvocationContext, url: str) -> tuple[list[str], list[Notice]]:
    """Who reads ``url`` for this call, and what the approving person is told about it
    (:func:`spyglass.fetch.hosted.dispatch.check`)."""
    fetch = context.settings.fetch
    if fetch.providers.strip() == DIRECT and not fetch.fallback:
        # Spyglass alone reads pages (the default): no hosted reader can see the URL, so
        # there is nothing to route or announce, and their clients are not even loaded.
        return [DIRECT], []
    # Imported here, not with the schemas: listing capabilities, validating a call or refusing
    # it by policy must not pay for the route, the privacy detectors or the provenance log.
    from spyglass.fetch.hosted import dispatch as hosted

    return hosted.check(url, context.settings, capability=NAME, invocation_id=context.invocation_id)


async def run(context: InvocationContext) -> JSON:
    arguments = context.arguments
    url = sent(context)
    offset: int = arguments.get("offset", 0)
    focus: str | None = arguments.get("focus")
    default = context.settings.fetch.focus_max_chars if focus else context.settings.fetch.max_chars
    max_chars: int = arguments.get("max_chars", default)
    from spyglass.fetch.hosted import dispatch as hosted

    pages: dict[str, ReadPage] = context.turn.cache.setdefault(PAGES_KEY, {})
    providers: dict[str, str] = context.turn.cache.setdefault(PROVIDERS_KEY, {})
    page = await _cached(context, url)
    if page is None:
        # The same route the precheck announced: it is pinned by the invocation id.
        order, _notices = hosted.check(
            url, context.settings, capability=NAME, invocation_id=context.invocation_id
        )

        def report(provider: str) -> None:
            context.provider = provider

        page = await hosted.fetch(
            url,
            context.settings,
            order,
            direct=lambda: _download(context, url),
            report=report,
            extract=extract,
        )
        pages[url] = page
        providers[url] = context.provider or hosted.DIRECT
        await _keep(context, url, page, providers[url])
    else:
        context.provider = providers.get(url, hosted.DIRECT)
    # The focus is applied here, to the page as read: it is never part of any request.
    return fitted(page, offset, max_chars, context.max_result_bytes, context.provider, focus)


def _scope(context: InvocationContext) -> str | None:
    """The turn's name in the page cache; ``None`` outside a conversation (each call its own
    turn, so there is nothing to carry on)."""
    turn = context.turn
    return None if turn.conversation_id is None else f"{turn.conversation_id}/{turn.id}"


async def _cached(context: InvocationContext, url: str) -> ReadPage | None:
    """The page as read earlier this turn: in this process, or kept by the process that ran
    the turn before it paused (a turn resumed elsewhere, or after a restart)."""
    pages: dict[str, ReadPage] = context.turn.cache.setdefault(PAGES_KEY, {})
    if url in pages:
        return pages[url]
    scope = _scope(context)
    if scope is None:
        return None
    try:
        raw = await context.seams.get(PAGE_CACHE).get(scope, url)
    except StoreUnavailable:
        return None  # fetched again: slower, never wrong
    from spyglass.fetch.page import from_bytes

    kept = None if raw is None else from_bytes(raw)
    if kept is None:
        return None
    page, provider = kept
    pages[url] = page
    context.turn.cache.setdefault(PROVIDERS_KEY, {})[url] = provider
    return page


async def _keep(context: InvocationContext, url: str, page: ReadPage, provider: str) -> None:
    scope = _scope(context)
    if scope is None:
        return
    from spyglass.fetch.page import to_bytes

    # Unavailable: only a resumed turn's later parts would be fetched again.
    with contextlib.suppress(StoreUnavailable):
        await context.seams.get(PAGE_CACHE).put(scope, url, to_bytes(page, provider))


async def extract(body: bytes, media: MediaType, url: str) -> Document:
    """``body`` read for the model by :func:`spyglass.extract.to_document`."""
    import asyncio

    from spyglass.extract import to_document
    from spyglass.extract.document import HTML, PDF

    if media.essence in HTML or media.essence == PDF:
        # Extraction is CPU work: keep the event loop free for other requests meanwhile.
        return await asyncio.to_thread(to_document, body, media, url)
    return to_document(body, media, url)


async def read(fetched: FetchedPage) -> ReadPage:
    """What the model reads of a downloaded page."""
    from spyglass.extract.document import Document
    from spyglass.fetch.page import ReadPage

    if fetched.redirected:
        # A redirect not followed: nothing was downloaded, the result says where it points.
        return ReadPage.of(fetched, Document(None, ""))
    return ReadPage.of(fetched, await extract(fetched.body, fetched.media, fetched.final_url))


async def read_rendered(
    fetched: FetchedPage,
    static: ReadPage,
    mode: str,
    config: FetchConfig,
    limits: RenderLimits,
    resolver: Resolver,
    dialler: Dialler,
    ssl_context: ssl.SSLContext | None = None,
) -> ReadPage:
    """``static`` (the read of ``fetched``), or the page rendered and read again when
    ``fetch.render = mode`` and the page calls for it (:mod:`spyglass.fetch.render.decide`)."""
    from spyglass.extract.document import MediaType
    from spyglass.fetch.render.decide import rendered

    chars = len(static.document.text)
    outcome = await rendered(fetched, chars, mode, config, limits, resolver, dialler, ssl_context)
    if outcome is None:
        return static
    if outcome.html is None or outcome.final_url is None:
        return replace(static, rendering=outcome.rendering)
    html = outcome.html.encode("utf-8")
    document = await extract(html, MediaType("text/html", "utf-8"), outcome.final_url)
    return replace(
        static, document=document, final_url=outcome.final_url, rendering=outcome.rendering
    )


async def _download(context: InvocationContext, url: str) -> ReadPage:
    # The fetch stack (httpx, the HTML extractor) is imported by the first fetch, not with
    # the schemas: listing, validating or refusing a call must not pay for it.
    from spyglass.fetch.fetcher import FetchConfig, Fetcher
    from spyglass.net.seams import DIALLER, RESOLVER, SSL_CONTEXT

    # The settings model already validated the domain lists, so this cannot fail here.
    config = FetchConfig.from_settings(context.settings.fetch)
    robots: dict[str, RobotsRules] = context.turn.cache.setdefault(ROBOTS_KEY, {})
    seams = context.seams
    mode = context.settings.fetch.render
    async with Fetcher(
        config,
        seams.get(RESOLVER),
        seams.get(DIALLER),
        ssl_context=seams.get(SSL_CONTEXT),
    ) as fetcher:
        fetched = await fetcher.fetch(url, robots_cache=robots)
    page = await read(fetched)
    if mode == "off":
        return page
    from spyglass.fetch.render.limits import RenderLimits

    # The downloaded source serves the render; the turn keeps only what the model reads.
    return await read_rendered(
        fetched,
        page,
        mode,
        config,
        RenderLimits.from_settings(context.settings.fetch),
        seams.get(RESOLVER),
        seams.get(DIALLER),
        seams.get(SSL_CONTEXT),
    )


def fitted(
    page: ReadPage,
    offset: int,
    max_chars: int,
    max_bytes: int,
    provider: str | None = None,
    focus: str | None = None,
) -> JSON:
    """The result for one part, shortened until its JSON fits in ``max_bytes``; with
    ``focus``, the focused read of the text from ``offset`` on
    (:func:`spyglass.extract.focus.focused`)."""
    from spyglass.fetch.paging import part

    chars = max_chars
    while True:
        if focus:
            result = _focused_result(page, offset, chars, provider, focus)
        else:
            result = _result(page, part(page.document.text, offset, chars), provider)
        size = len(json.dumps(result, ensure_ascii=False).encode("utf-8"))
        if size <= max_bytes or chars <= 1:
            return result
        # Shrink in proportion to the overshoot; multi-byte text needs a few rounds at most.
        chars = max(1, int(chars * max_bytes / size * 0.95))


#: The note of a page read to no text at all, so a model neither takes the empty text for a
#: failed call to retry nor makes up what the page says.
NOTHING_TO_READ = (
    "No text could be read from this page: what it shows may be built by scripts, be "
    "images, or sit behind a login or a consent page."
)


def _result(page: ReadPage, piece: Part, provider: str | None) -> JSON:
    result: dict[str, Any] = {
        "url": page.url,
        "final_url": page.final_url,
        "status": page.status,
        "content_type": page.content_type,
    }
    if page.document.title:
        result["title"] = page.document.title
    result["text"] = piece.text
    result["offset"] = piece.offset
    if piece.next_offset is not None:
        result["next_offset"] = piece.next_offset
    result["total_chars"] = piece.total_chars
    result["truncated"] = piece.truncated
    result["redirected"] = page.redirected
    if page.redirect_chain:
        result["redirect_chain"] = list(page.redirect_chain)
    result["retrieved_at"] = page.retrieved_at
    if page.cut_at_bytes is not None:
        result["cut_at_bytes"] = page.cut_at_bytes
    if provider is not None:
        result["provider"] = provider
    rendering = page.rendering
    if rendering is not None:
        result["rendered"] = rendering.rendered
        if rendering.rendered:
            result["contacted_hosts"] = list(rendering.other_hosts)
            result["requests_refused"] = rendering.refused
        if rendering.note:
            result["note"] = rendering.note
    # An empty text after a redirect is the redirect not followed (the result says where to).
    if not piece.total_chars and not page.redirected and "note" not in result:
        result["note"] = NOTHING_TO_READ
    return result


def _focused_result(
    page: ReadPage, offset: int, max_chars: int, provider: str | None, focus: str
) -> JSON:
    from spyglass.extract.focus import focused
    from spyglass.fetch.paging import Part, part

    text = page.document.text
    # The same check as a plain part's, so an offset past the end reads the same error.
    part(text, offset, 1)
    read = focused(text[offset:], focus, max_chars, base=offset)
    whole = read.left_out == 0
    result = _result(page, Part(read.text, offset, None, len(text)), provider)
    result["truncated"] = not whole
    if not whole:
        result["left_out_chars"] = read.left_out
    return result


def problems(settings: Settings) -> list[str]:
    """Why ``web.fetch`` cannot run as configured (:mod:`spyglass.capabilities.readiness`)."""
    fetch = settings.fetch
    if fetch.providers.strip() == DIRECT and not fetch.fallback:
        # Spyglass alone reads pages (the default): no hosted reader needs a key or an
        # address, so there is nothing to check and their clients are not even loaded (an
        # MCP host waits for the tool list this decides).
        return []
    # Imported when asked, not with the schema: it brings every hosted reader's client.
    from spyglass.capabilities.readiness import fetch_problems

    return fetch_problems(settings)


CAPABILITY = Capability(
    name=NAME,
    version=1,
    title="Read a web page",
    description=(
        "Read one public web page (HTML, text, Markdown, JSON or PDF) and return its main "
        "content as Markdown. Long pages come in parts: call again with offset=next_offset "
        "to read on. For a long page and a specific question, pass focus (the question or "
        "key terms): you get the page's outline and the passages that answer it, each with "
        "its character offset, within a smaller budget; offset still pages through the "
        "whole text, so call again without focus at an offset to read a section whole. "
        "A redirect to another site is reported, not followed. cut_at_bytes "
        "means the page was longer than the owner's size limit and only its start was read; "
        "provider says who read the page: direct, or a hosted reader the owner chose. "
        "rendered means the page's scripts ran in Spyglass's contained browser, and "
        "contacted_hosts lists the other sites it reached; note says how the page was read "
        "when that matters."
    ),
    argument_schema=ARGUMENTS,
    result_schema=RESULT,
    side_effect=SideEffect.READ_ONLY,
    network=Network.EXTERNAL,
    bounds=Bounds(timeout_seconds=15, max_result_bytes=450_000, max_invocations_per_turn=5),
    handler=run,
    policy_key=WEB_ACCESS,
    precheck=precheck,
    timeout_setting="fetch.call_timeout_seconds",
    readiness=problems,
    approval_key="fetch",
    unusual=unusual,
)
