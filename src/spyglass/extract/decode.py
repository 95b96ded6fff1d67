"""Bytes to text: the charset from the header, then the document's own meta tag, then
detection, so a page that does not declare its encoding still reads correctly; a page
labelled with a single-byte Western charset whose bytes are UTF-8 is read as UTF-8. A
charset is known by the labels of the WHATWG Encoding Standard, as a browser knows it."""

from __future__ import annotations

import codecs
import re

import webencodings
from charset_normalizer import from_bytes

_META_CHARSET = re.compile(
    rb"""<meta[^>]+charset\s*=\s*["']?\s*([a-zA-Z0-9_:.\-]+)""", re.IGNORECASE
)
_XML_DECLARATION = re.compile(rb"""^<\?xml[^>]+encoding\s*=\s*["']([a-zA-Z0-9_.\-]+)""")
_BOMS = (
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


def known(name: str | None) -> str | None:
    """The Python codec for a declared charset name, or ``None`` if it is unknown."""
    if not name:
        return None
    # The standard's labels, not Python's codec names: a server declaring "rot13", "hex" or
    # "undefined" made the page undecodable, and "utf-7" or "unicode_escape" would rewrite
    # its text. The standard also reads ISO-8859-1 and ASCII as windows-1252, as browsers do.
    encoding = webencodings.lookup(name.strip().strip("\"'"))
    if encoding is None:
        return None
    codec: str = encoding.codec_info.name
    try:
        codecs.lookup(codec)
    except LookupError:
        # "x-user-defined" and the standard's "replacement" have no Python codec: the page
        # is read as undeclared.
        return None
    return codec


def declared_in_document(body: bytes) -> str | None:
    """The charset a ``<meta>`` tag or XML declaration names in the first 8 KB."""
    head = body[:8192]
    match = _XML_DECLARATION.match(head) or _META_CHARSET.search(head)
    return known(match.group(1).decode("ascii", "replace")) if match else None


#: Single-byte Western charsets (as :func:`known` names them) a UTF-8 page is often mislabelled
#: with: a stale ``<meta>`` left by an editor or a re-encoding, a server's default charset.
_WESTERN = frozenset(["cp1252", "iso8859-15"])


def _as_declared(body: bytes, declared: str) -> str:
    """``body`` in its ``declared`` charset, unless that is a Western single-byte one and
    ``body`` is valid UTF-8 beyond ASCII, which genuine Western single-byte text practically
    never forms (it would read as "Ã©" in its own charset): then as UTF-8."""
    if declared in _WESTERN and not body.isascii():
        try:
            return body.decode("utf-8")
        except UnicodeDecodeError:
            pass
    return body.decode(declared, errors="replace")


def decode(body: bytes, header_charset: str | None, *, markup: bool) -> str:
    """Decode ``body``: BOM, header charset, meta charset (markup only), UTF-8, detection."""
    for bom, name in _BOMS:
        if body.startswith(bom):
            return body.decode(name, errors="replace")
    candidates: list[str | None] = [known(header_charset)]
    if markup:
        candidates.append(declared_in_document(body))
    for candidate in candidates:
        if candidate:
            return _as_declared(body, candidate)
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError:
        pass
    best = from_bytes(body).best()
    if best is not None and best.encoding:
        return body.decode(best.encoding, errors="replace")
    return body.decode("utf-8", errors="replace")
