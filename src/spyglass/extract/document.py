"""Which content types ``web.fetch`` reads, and how each becomes text for the model."""

from __future__ import annotations

import io
import json
import logging
from dataclasses import dataclass

from spyglass import jsontext
from spyglass.errors import CapabilityError
from spyglass.extract.decode import decode
from spyglass.net.errors import UNSUPPORTED_CONTENT

logger = logging.getLogger(__name__)

HTML = frozenset({"text/html", "application/xhtml+xml"})
TEXT = frozenset({"text/plain", "text/markdown", "text/x-markdown"})
JSON_TYPES = frozenset({"application/json"})
PDF = "application/pdf"
ALLOWED = HTML | TEXT | JSON_TYPES | {PDF}


@dataclass(frozen=True)
class MediaType:
    essence: str
    charset: str | None

    @classmethod
    def parse(cls, header: str | None) -> MediaType:
        if not header:
            return cls("", None)
        essence, _, rest = header.partition(";")
        charset = None
        for parameter in rest.split(";"):
            key, _, value = parameter.partition("=")
            if key.strip().lower() == "charset":
                charset = value.strip().strip("\"'") or None
        return cls(essence.strip().lower(), charset)

    @property
    def allowed(self) -> bool:
        return self.essence in ALLOWED or self.essence.endswith("+json")


@dataclass(frozen=True)
class Document:
    """What the model reads: a title when there is one, and the text."""

    title: str | None
    text: str


def unsupported(essence: str) -> CapabilityError:
    shown = essence[:80] if essence else "an undeclared type"
    return CapabilityError(
        UNSUPPORTED_CONTENT,
        f"the page is {shown}, which web.fetch does not read; it reads HTML, plain text, "
        "Markdown, JSON and PDF",
    )


def sniff(body: bytes) -> str:
    """A content type for a response that declared none, from its first bytes."""
    head = body[:1024].lstrip()
    if head.startswith(b"%PDF-"):
        return PDF
    if b"\x00" in head:
        return "application/octet-stream"
    lowered = head[:256].lower()
    if lowered.startswith((b"<!doctype html", b"<html", b"<head", b"<body")):
        return "text/html"
    if head[:1] in (b"{", b"["):
        return "application/json"
    return "text/plain"


def to_document(body: bytes, media: MediaType, url: str) -> Document:
    """Turn a body of an allowed type into text (HTML→Markdown, JSON pretty, PDF text)."""
    essence = media.essence
    if essence == PDF:
        return _pdf(body)
    if essence in HTML:
        # The extractor (trafilatura, lxml) loads with the first page, not with this module:
        # a refused or provider-read fetch never needs it.
        from spyglass.extract.html import extract_html

        extracted = extract_html(decode(body, media.charset, markup=True), url)
        return Document(extracted.title, extracted.text)
    text = decode(body, media.charset, markup=False)
    if essence in JSON_TYPES or essence.endswith("+json"):
        try:
            return Document(None, json.dumps(jsontext.loads(text), indent=2, ensure_ascii=False))
        # Not JSON after all (or nested too deeply to read), or too deep to write indented:
        # as received.
        except (ValueError, RecursionError):
            return Document(None, text)
    return Document(None, text)


def _pdf(body: bytes) -> Document:
    from pypdf import PdfReader

    try:
        reader = PdfReader(io.BytesIO(body))
        pages = [(page.extract_text() or "").strip() for page in reader.pages]
        title = None
        if reader.metadata is not None and reader.metadata.title:
            title = str(reader.metadata.title).strip() or None
    # The PDF is the web's, and pypdf raises more than its own errors on a damaged one (an
    # AssertionError for a reference inside a content stream, an AttributeError for an
    # object numbered twice): whatever the parser raises means it could not be read.
    except Exception as exc:
        logger.info("PDF could not be read: %s", type(exc).__name__)
        raise CapabilityError(
            UNSUPPORTED_CONTENT,
            "the PDF could not be read (it may be damaged or encrypted)",
        ) from None
    text = "\n\n".join(p for p in pages if p)
    return Document(title, text)
