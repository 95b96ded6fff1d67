"""Reading a response body under a cap that counts *decoded* bytes, with bounded memory.

httpx's own decoders inflate a whole network chunk at once, so 64 KB of gzip can become
tens of megabytes before anyone counts it. Here the raw bytes are inflated with
``zlib``'s ``max_length`` in small steps, and reading stops the moment the decoded size
passes the cap. Only identity, gzip and deflate are accepted (the request says so too):
brotli and zstd cannot be inflated in bounded steps with the standard library.
"""

from __future__ import annotations

import zlib
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

import httpx

from spyglass.errors import UpstreamError

if TYPE_CHECKING:
    from zlib import _Decompress

ACCEPT_ENCODING = "gzip, deflate, identity;q=0.5"
_STEP = 64 * 1024


class BodyTooLarge(UpstreamError):
    """The decoded body passed the cap; nothing more was read."""


class UnsupportedEncoding(UpstreamError):
    """The server used a content coding we did not ask for."""


def _decompressor(encoding: str) -> _Decompress | None:
    codings = [c.strip().lower() for c in encoding.split(",") if c.strip()]
    codings = [c for c in codings if c != "identity"]
    if not codings:
        return None
    if codings == ["gzip"] or codings == ["x-gzip"]:
        return zlib.decompressobj(16 + zlib.MAX_WBITS)
    if codings == ["deflate"]:
        # HTTP "deflate" is zlib-wrapped; 32 + MAX_WBITS also accepts a gzip header.
        return zlib.decompressobj(32 + zlib.MAX_WBITS)
    raise UnsupportedEncoding(encoding)


async def read_body(response: httpx.Response, cap: int) -> bytes:
    """The decoded body of a streamed ``response``; :class:`BodyTooLarge` past ``cap``."""
    decompressor = _decompressor(response.headers.get("content-encoding", ""))
    out = bytearray()
    async for piece in _decoded(response.aiter_raw(), decompressor):
        out += piece
        if len(out) > cap:
            raise BodyTooLarge
    return bytes(out)


async def read_prefix(response: httpx.Response, cap: int) -> tuple[bytes, bool]:
    """At most ``cap`` decoded bytes of ``response``, and whether there was more.

    Reading stops as soon as the cap is passed, so a huge or endless body costs no more than
    a capped one.
    """
    decompressor = _decompressor(response.headers.get("content-encoding", ""))
    out = bytearray()
    async for piece in _decoded(response.aiter_raw(), decompressor):
        out += piece
        if len(out) > cap:
            return bytes(out[:cap]), True
    return bytes(out), False


def decoded(response: httpx.Response) -> AsyncIterator[bytes]:
    """The decoded body of a streamed ``response`` in bounded pieces, for callers that keep
    their own count (a render's byte budget spans many responses)."""
    decompressor = _decompressor(response.headers.get("content-encoding", ""))
    return _decoded(response.aiter_raw(), decompressor)


async def _decoded(
    raw: AsyncIterator[bytes], decompressor: _Decompress | None
) -> AsyncIterator[bytes]:
    if decompressor is None:
        async for chunk in raw:
            yield chunk
        return
    async for chunk in raw:
        data = chunk
        while data:
            try:
                piece = decompressor.decompress(data, _STEP)
            except zlib.error:
                raise UnsupportedEncoding("corrupt compressed body") from None
            if piece:
                yield piece
            data = decompressor.unconsumed_tail
            if decompressor.eof:
                break
        if decompressor.eof:
            break
    tail = decompressor.flush(_STEP)
    if tail:
        yield tail
