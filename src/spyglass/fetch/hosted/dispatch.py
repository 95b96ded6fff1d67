"""One ``web.fetch`` through the configured providers: route, read, fall back, convert.

The route is the search router's (:mod:`spyglass.providers.routing`) over ``"direct"`` plus
the hosted readers, pinned by the invocation id: the precheck that tells the person who will
read the page and the approved call that reads it compute the same route. A reader's page
becomes the same :class:`~spyglass.fetch.page.ReadPage` a direct fetch gives (HTML is read
by the ``extract`` function ``web.fetch`` passes in, the one it reads its own downloads
with), so paging, caps and the result shape are shared.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from spyglass.core.outcome import Notice
from spyglass.errors import CapabilityError
from spyglass.fetch.hosted import READERS
from spyglass.fetch.hosted.reader import DIRECT, FAILURES, FetchFailure, Reader
from spyglass.fetch.hosted.targets import check_for_reader
from spyglass.net.errors import TargetRejected, last_of_attempts, sent_nothing
from spyglass.providers.exchange import NOT_CONFIGURED, Endpoint
from spyglass.providers.keys import keys_of, redact
from spyglass.providers.routing import RoutingError, plan
from spyglass.providers.text import clean_url
from spyglass.settings import FetchSettings, Settings

if TYPE_CHECKING:
    # The page types come with the first page read, not with the route.
    from spyglass.fetch.page import Extract, ReadPage

#: Below this many seconds left, no fallback is started.
MIN_ATTEMPT_SECONDS = 0.5
NAMES: tuple[str, ...] = (DIRECT, *READERS)


def route(url: str, settings: FetchSettings, *, capability: str, invocation_id: str) -> list[str]:
    """Who reads ``url`` for this invocation: the chosen provider, then usable fallbacks.

    Raises ``FETCH_NOT_CONFIGURED`` for a bad ``fetch.providers``/``fetch.fallback``, and
    :class:`TargetRejected` when the chosen provider is a hosted reader and ``url`` fails
    the reader rules. A fallback reader the URL may not go to is left out, so nobody is
    told a reader might see the URL when it never could.
    """
    try:
        order = plan(
            settings.providers,
            settings.fallback,
            NAMES,
            capability=capability,
            invocation_id=invocation_id,
            section="fetch",
        )
    except RoutingError as problem:
        raise FetchFailure(f"FETCH_{NOT_CONFIGURED}", str(problem)) from None
    if order[0] != DIRECT:
        check_for_reader(url, settings)
        return order
    kept = [DIRECT]
    for name in order[1:]:
        try:
            check_for_reader(url, settings)
        except TargetRejected:
            continue
        kept.append(name)
    return kept


def endpoint_for(reader: Reader, settings: Settings) -> Endpoint:
    """``fetch.<name>``'s address and key, each defaulting to ``search.<name>``'s.

    One account usually serves both tools, so a key set once for search also reads pages;
    a ``fetch.<name>`` table overrides it when the owner wants them apart.
    """
    name = reader.name
    own = settings.fetch.provider(name)
    shared = settings.search.provider(name)
    secret = own.api_key if own.api_key is not None else shared.api_key
    return reader.endpoint(
        own.base_url or shared.base_url or reader.default_base_url,
        secret.get_secret_value() if secret is not None else None,
        key_setting=f"fetch.{name}.api_key (or search.{name}.api_key)",
    )


def secrets_of(settings: Settings) -> list[str]:
    """Every configured provider key, to be scrubbed from anything shown."""
    return keys_of(
        [
            *settings.fetch.provider_sections().values(),
            *settings.search.provider_sections().values(),
        ]
    )


def provider_line(reader: Reader) -> str:
    """The line that opens a page a reader delivered, so the model can attribute it."""
    return (
        f"[Page read by {reader.display_name} (web.fetch provider {reader.name}); "
        f"{reader.display_name} resolved the address and followed any redirects itself.]"
    )


async def read(
    reader: Reader, url: str, settings: Settings, *, timeout: float, extract: Extract
) -> ReadPage:
    """One exchange with ``reader``: the page at ``url`` as a :class:`ReadPage`, HTML read
    by ``extract``.

    Any configured key a provider echoes back is masked in messages and in the page.
    """
    from spyglass.extract.document import Document

    secrets = secrets_of(settings)
    try:
        page = await _read(reader, url, settings, timeout=timeout, extract=extract)
    except CapabilityError as failure:
        failure.message = redact(failure.message, secrets)
        failure.args = (failure.message,)
        raise
    document = Document(
        redact(page.document.title, secrets) if page.document.title else None,
        redact(page.document.text, secrets),
    )
    return replace(page, document=document)


async def _read(
    reader: Reader, url: str, settings: Settings, *, timeout: float, extract: Extract
) -> ReadPage:
    from spyglass.extract.document import Document, MediaType
    from spyglass.fetch.page import ReadPage

    endpoint = endpoint_for(reader, settings)
    request = reader.build_request(url, endpoint)
    body = await reader.exchange(
        request, timeout=timeout, max_bytes=reader.max_bytes(settings.fetch.max_page_bytes)
    )
    page = reader.parse(body, url)
    if page.format == "html":
        # The same extraction a directly fetched page gets (off the event loop).
        source = (clean_url(page.source_url) if page.source_url else None) or url
        document = await extract(page.content.encode(), MediaType("text/html", "utf-8"), source)
        title = page.title or document.title
        content = document.text
    else:
        title, content = page.title, page.content
    # The provider's word for where it read the page: kept only when it is a usable address.
    final_url = (clean_url(page.source_url) if page.source_url else None) or url
    return ReadPage(
        url=url,
        final_url=final_url,
        status=200,
        content_type="text/markdown" if page.format != "text" else "text/plain",
        document=Document(title, provider_line(reader) + "\n\n" + content),
        redirected=False,
        redirect_chain=(),
        retrieved_at=datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
    )


async def fetch(
    url: str,
    settings: Settings,
    order: list[str],
    *,
    direct: Callable[[], Awaitable[ReadPage]],
    report: Callable[[str], None],
    extract: Extract,
    readers: dict[str, Reader] | None = None,
) -> ReadPage:
    """The page, from the first provider in ``order`` that delivers it; a hosted reader's
    HTML is read by ``extract``.

    Only a retryable failure moves on to the next provider, within ``fetch.timeout_seconds``
    overall; ``report`` is told each provider as it is tried, so the audit names the one
    that ran.
    """
    known = readers if readers is not None else READERS
    deadline = time.monotonic() + settings.fetch.timeout_seconds
    first: CapabilityError | None = None
    # Whether any attempt may have reached its reader or the site: only then did the URL leave.
    reached = False
    for position, name in enumerate(order):
        remaining = deadline - time.monotonic()
        if position and remaining < MIN_ATTEMPT_SECONDS:
            break
        report(name)
        try:
            if name == DIRECT:
                return await direct()
            return await read(known[name], url, settings, timeout=remaining, extract=extract)
        except CapabilityError as failure:
            earlier, reached = reached, reached or not sent_nothing(failure)
            if not failure.retryable or position + 1 == len(order):
                if first is not None and position:
                    failure.message = (
                        f"{failure.message} (after {order[0]} failed first: {first.message})"
                    )
                raise last_of_attempts(failure, reached=earlier) from None
            first = first or failure
    assert first is not None
    raise last_of_attempts(first, reached=reached)


def check(
    url: str, settings: Settings, *, capability: str, invocation_id: str
) -> tuple[list[str], list[Notice]]:
    """The route for this call and what the approving person must be told about it.

    Everything here needs no network: the route, the reader URL rules and each reader's
    configuration. Raises a refusal when the call could only fail.
    """
    order = route(url, settings.fetch, capability=capability, invocation_id=invocation_id)
    for name in order:
        if name != DIRECT:
            endpoint_for(READERS[name], settings)
    return order, announce(order)


def announce(order: list[str]) -> list[Notice]:
    """A ``fetch.provider`` notice naming who will see the URL, when anyone but Spyglass will."""
    readers = [READERS[name].display_name for name in order if name != DIRECT]
    if not readers:
        return []
    if order[0] == DIRECT:
        message = (
            f"Spyglass will fetch this page itself; if that fails, {_either(readers)} may be "
            "asked to fetch it for you and would then see the address."
        )
    else:
        message = (
            f"{readers[0]} will fetch this page for you: the address is sent to {readers[0]}, "
            "which reads the page from its own servers."
        )
        rest = readers[1:] + (["Spyglass itself"] if DIRECT in order[1:] else [])
        if rest:
            message += f" If that fails, {_either(rest)} may try instead."
    return [Notice(kind="fetch.provider", message=message, argument="url")]


def _either(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]


__all__ = [
    "DIRECT",
    "FAILURES",
    "announce",
    "check",
    "endpoint_for",
    "fetch",
    "provider_line",
    "read",
    "route",
]
