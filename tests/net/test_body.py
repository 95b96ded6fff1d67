"""Bodies are decoded in bounded steps and counted after decompression."""

from __future__ import annotations

import gzip
import zlib

import httpx
import pytest

from spyglass.net.body import BodyTooLarge, UnsupportedEncoding, read_body

TEXT = b"readable text " * 1000


def response(body: bytes, encoding: str | None) -> httpx.Response:
    headers = {"Content-Encoding": encoding} if encoding else {}
    return httpx.Response(200, headers=headers, stream=httpx.ByteStream(body))


@pytest.mark.parametrize(
    ("body", "encoding"),
    [
        (TEXT, None),
        (TEXT, "identity"),
        (gzip.compress(TEXT), "gzip"),
        (gzip.compress(TEXT), "x-gzip"),
        (zlib.compress(TEXT), "deflate"),
    ],
)
async def test_supported_codings_decode_to_the_original(body: bytes, encoding: str | None) -> None:
    assert await read_body(response(body, encoding), 1_000_000) == TEXT


async def test_the_cap_counts_decoded_bytes_not_wire_bytes() -> None:
    bomb = gzip.compress(b"\0" * 10_000_000)
    assert len(bomb) < 100_000
    with pytest.raises(BodyTooLarge):
        await read_body(response(bomb, "gzip"), 1_000_000)


async def test_a_body_exactly_at_the_cap_is_accepted() -> None:
    assert len(await read_body(response(TEXT, None), len(TEXT))) == len(TEXT)


@pytest.mark.parametrize(
    ("body", "encoding"), [(b"x", "br"), (b"x", "zstd"), (b"not gzip", "gzip")]
)
async def test_unrequested_or_corrupt_codings_are_refused(body: bytes, encoding: str) -> None:
    with pytest.raises(UnsupportedEncoding):
        await read_body(response(body, encoding), 1_000_000)
