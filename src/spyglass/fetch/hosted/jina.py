"""Jina Reader (``r.jina.ai``): the page as Markdown in a JSON envelope; a key is optional.

Without a key Jina serves a small free rate; with ``fetch.jina.api_key`` it is sent as a
Bearer token and billed to that account.
"""

from __future__ import annotations

from typing import ClassVar

from spyglass.fetch.hosted.reader import FetchFailure, HostedPage, Reader, said
from spyglass.providers.exchange import QUOTA_EXCEEDED, REJECTED, Endpoint, ProviderRequest
from spyglass.providers.explain import explain


class JinaReader(Reader):
    name: ClassVar[str] = "jina"
    display_name: ClassVar[str] = "Jina Reader"
    default_base_url: ClassVar[str] = "https://r.jina.ai"
    needs_key: ClassVar[bool] = False

    def build_request(self, url: str, endpoint: Endpoint) -> ProviderRequest:
        headers = {"Accept": "application/json", "X-Return-Format": "markdown"}
        if endpoint.api_key:
            headers["Authorization"] = f"Bearer {endpoint.api_key}"
        # Jina takes the target as the path; the base URL never carries a query.
        return ProviderRequest("GET", endpoint.url(url), headers=headers)

    def explain_error(self, status: int, body: bytes) -> FetchFailure | None:
        if status == 402:
            return self.failure(
                QUOTA_EXCEEDED,
                "jina says the account balance is used up (HTTP 402); top it up or set "
                "another fetch provider",
            )
        if status in (400, 422, 451):
            return self.failure(
                REJECTED,
                f"jina could not read this page (HTTP {status}){said(explain(body))}",
            )
        return None

    def parse(self, body: bytes, url: str) -> HostedPage:
        data = self.load_json(body)
        page = data.get("data") if isinstance(data, dict) else None
        if not isinstance(page, dict) or not isinstance(page.get("content"), str):
            raise self.invalid("data.content")
        return HostedPage.of(page["content"], source=page.get("url"), title=page.get("title"))
