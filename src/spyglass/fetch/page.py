"""A page as ``web.fetch`` returns it: the document read from it, and how it was fetched.

The fetcher only downloads (:class:`~spyglass.fetch.fetcher.FetchedPage`: the bytes and
their media type); ``web.fetch`` reads what was downloaded through
:func:`spyglass.extract.to_document` and gets a :class:`ReadPage`. A hosted reader delivers
a :class:`ReadPage` itself, reading HTML with the :data:`Extract` function it is given.
:func:`to_bytes` and :func:`from_bytes` are its stored form in the turn's page cache
(:mod:`spyglass.state.pages`): the text as read, not the downloaded bytes, so a later part
costs no second extraction.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from spyglass.extract.document import Document, MediaType

if TYPE_CHECKING:
    from spyglass.fetch.fetcher import FetchedPage
    from spyglass.fetch.render.report import Rendering

logger = logging.getLogger(__name__)

#: Page bytes, their media type and the page's URL → what the model reads
#: (``spyglass.capabilities.fetch.extract``: :func:`spyglass.extract.to_document`, with the
#: CPU work off the event loop).
Extract = Callable[[bytes, MediaType, str], Awaitable[Document]]


@dataclass(frozen=True)
class ReadPage:
    """One page read for the model, before pagination."""

    url: str
    final_url: str
    status: int
    content_type: str
    document: Document
    redirected: bool
    redirect_chain: tuple[str, ...]
    retrieved_at: str
    #: Set when the page was larger than ``fetch.max_page_bytes``: only this many decoded
    #: bytes were read and turned into text.
    cut_at_bytes: int | None = None
    #: Set when rendering was considered: whether it happened, and whom the page contacted.
    rendering: Rendering | None = None

    @classmethod
    def of(cls, fetched: FetchedPage, document: Document) -> ReadPage:
        """``fetched`` as read: ``document`` is what extraction made of its body."""
        return cls(
            url=fetched.url,
            final_url=fetched.final_url,
            status=fetched.status,
            content_type=fetched.content_type,
            document=document,
            redirected=fetched.redirected,
            redirect_chain=fetched.redirect_chain,
            retrieved_at=fetched.retrieved_at,
            cut_at_bytes=fetched.cut_at_bytes,
        )


def to_bytes(page: ReadPage, provider: str) -> bytes:
    """The page as read (title, text and how it was fetched) and who read it, as JSON."""
    data = {
        "url": page.url,
        "final_url": page.final_url,
        "status": page.status,
        "content_type": page.content_type,
        "title": page.document.title,
        "text": page.document.text,
        "redirected": page.redirected,
        "redirect_chain": list(page.redirect_chain),
        "retrieved_at": page.retrieved_at,
        "cut_at_bytes": page.cut_at_bytes,
        "provider": provider,
    }
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "replace")


def from_bytes(raw: bytes) -> tuple[ReadPage, str] | None:
    """What :func:`to_bytes` kept; ``None`` for an entry it cannot read (kept by
    another version, or damaged): the page is fetched again, slower but never wrong."""
    try:
        data = json.loads(raw)
        page = ReadPage(
            url=_text(data["url"]),
            final_url=_text(data["final_url"]),
            status=int(data["status"]),
            content_type=_text(data["content_type"]),
            document=Document(
                None if data["title"] is None else _text(data["title"]), _text(data["text"])
            ),
            redirected=bool(data["redirected"]),
            redirect_chain=tuple(_text(hop) for hop in data["redirect_chain"]),
            retrieved_at=_text(data["retrieved_at"]),
            cut_at_bytes=None if data["cut_at_bytes"] is None else int(data["cut_at_bytes"]),
        )
        return page, _text(data["provider"])
    # ValueError covers JSON that does not parse and bytes that are not UTF-8; RecursionError
    # JSON nested too deeply to parse.
    except (ValueError, KeyError, TypeError, RecursionError) as exc:
        logger.info("a kept page could not be read (%s); fetching it again", type(exc).__name__)
        return None


def _text(value: object) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected a string, got {type(value).__name__}")
    return value
