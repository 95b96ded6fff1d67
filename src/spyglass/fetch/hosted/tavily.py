"""Tavily Extract (Bearer key): basic depth, Markdown, no images. Never returns a title."""

from __future__ import annotations

from typing import ClassVar

from spyglass.fetch.hosted.reader import FetchFailure, HostedPage, Reader, said
from spyglass.providers.exchange import QUOTA_EXCEEDED, REJECTED, Endpoint, ProviderRequest
from spyglass.providers.explain import explain, explain_value


class TavilyExtract(Reader):
    name: ClassVar[str] = "tavily"
    display_name: ClassVar[str] = "Tavily"
    default_base_url: ClassVar[str] = "https://api.tavily.com"

    def build_request(self, url: str, endpoint: Endpoint) -> ProviderRequest:
        return ProviderRequest(
            "POST",
            endpoint.url("extract"),
            json={
                "urls": [url],
                "extract_depth": "basic",
                "format": "markdown",
                "include_images": False,
            },
            headers={
                "Accept": "application/json",
                "Authorization": f"Bearer {endpoint.api_key or ''}",
            },
        )

    def explain_error(self, status: int, body: bytes) -> FetchFailure | None:
        if status in (432, 433):
            which = "plan" if status == 432 else "pay-as-you-go"
            return self.failure(
                QUOTA_EXCEEDED,
                f"tavily says this key is over its {which} usage limit (HTTP {status}); "
                "upgrade the plan or raise the limit in the Tavily dashboard",
            )
        if status == 400:
            return self.failure(
                REJECTED,
                f"tavily refused to extract this page (HTTP 400){said(explain(body))}; "
                'fetch another page or use fetch.providers = "direct"',
            )
        return None

    def parse(self, body: bytes, url: str) -> HostedPage:
        data = self.load_json(body)
        if not isinstance(data, dict) or not isinstance(data.get("results"), list):
            raise self.invalid("a results list")
        for item in data["results"]:
            if isinstance(item, dict) and isinstance(item.get("raw_content"), str):
                return HostedPage.of(item["raw_content"], source=item.get("url"))
        failed = data.get("failed_results")
        reason = ""
        if isinstance(failed, list) and failed and isinstance(failed[0], dict):
            reason = explain_value(failed[0].get("error"))
        raise self.failure(
            REJECTED,
            f"tavily could not extract this page{said(reason)}; it may block automated "
            "readers, or try another page",
        )
