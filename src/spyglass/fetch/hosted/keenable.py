"""Keenable Fetch (``X-API-Key``): bounded Markdown, read live rather than from the index."""

from __future__ import annotations

from typing import ClassVar

from spyglass.fetch.hosted.reader import FetchFailure, HostedPage, Reader, said
from spyglass.providers.exchange import AUTH_FAILED, REJECTED, Endpoint, ProviderRequest
from spyglass.providers.explain import explain

#: Characters of Markdown asked for; Keenable cuts longer pages there.
MAX_CHARS = 200_000
#: Keenable bounds characters, the reader bounds bytes: up to 4 bytes a character, plus JSON.
BYTES_PER_CHAR = 4
ENVELOPE_BYTES = 64 * 1024


class KeenableFetch(Reader):
    name: ClassVar[str] = "keenable"
    display_name: ClassVar[str] = "Keenable"
    default_base_url: ClassVar[str] = "https://api.keenable.ai"

    def build_request(self, url: str, endpoint: Endpoint) -> ProviderRequest:
        return ProviderRequest(
            "GET",
            endpoint.url("v1/fetch"),
            params={"url": url, "max_chars": str(MAX_CHARS), "live": "true"},
            headers={"Accept": "application/json", "X-API-Key": endpoint.api_key or ""},
        )

    def max_bytes(self, page_cap: int) -> int:
        return max(page_cap, MAX_CHARS * BYTES_PER_CHAR + ENVELOPE_BYTES)

    def explain_error(self, status: int, body: bytes) -> FetchFailure | None:
        text = explain(body)
        if status in (401, 403) or (status == 400 and "key" in text.lower()):
            return self.failure(
                AUTH_FAILED,
                f"keenable refused the API key (HTTP {status}); check fetch.keenable.api_key "
                "(or search.keenable.api_key, which it defaults to)",
            )
        if status in (400, 404, 422):
            return self.failure(
                REJECTED,
                f"keenable could not read this page (HTTP {status}){said(text)}; fetch "
                "another page or another provider",
            )
        return None

    def parse(self, body: bytes, url: str) -> HostedPage:
        data = self.load_json(body)
        if not isinstance(data, dict) or not isinstance(data.get("content"), str):
            raise self.invalid("content")
        return HostedPage.of(data["content"], source=data.get("url"), title=data.get("title"))
