"""Firecrawl Scrape v2 (Bearer key): Markdown, main content only, TLS verification kept on.

Firecrawl uses 403 for refusals of a target or feature as well as for account permissions,
so a 403 alone is no evidence of a bad key: it is "provider rejected", not "auth failed".
"""

from __future__ import annotations

from typing import Any, ClassVar

from spyglass.errors import CapabilityError
from spyglass.fetch.hosted.reader import FetchFailure, HostedPage, Reader, said
from spyglass.net.errors import HTTP_ERROR
from spyglass.providers.exchange import (
    AUTH_FAILED,
    QUOTA_EXCEEDED,
    REJECTED,
    Endpoint,
    ProviderRequest,
)
from spyglass.providers.explain import explain, explain_value


class FirecrawlScrape(Reader):
    name: ClassVar[str] = "firecrawl"
    display_name: ClassVar[str] = "Firecrawl"
    default_base_url: ClassVar[str] = "https://api.firecrawl.dev"

    def build_request(self, url: str, endpoint: Endpoint) -> ProviderRequest:
        return ProviderRequest(
            "POST",
            endpoint.url("v2/scrape"),
            json={
                "url": url,
                "formats": ["markdown"],
                "onlyMainContent": True,
                # Firecrawl would otherwise read a page behind a broken certificate.
                "skipTlsVerification": False,
                "removeBase64Images": True,
            },
            headers={
                "Accept": "application/json",
                "Authorization": f"Bearer {endpoint.api_key or ''}",
            },
        )

    def explain_error(self, status: int, body: bytes) -> FetchFailure | None:
        if status == 401:
            return self.failure(
                AUTH_FAILED,
                "firecrawl refused the API key (HTTP 401); check fetch.firecrawl.api_key "
                "(or search.firecrawl.api_key, which it defaults to)",
            )
        if status == 402:
            return self.failure(
                QUOTA_EXCEEDED,
                f"firecrawl says the account is out of credits{said(explain(body))}; add "
                "credits or upgrade the Firecrawl plan",
            )
        if status == 403:
            return self.failure(
                REJECTED,
                "firecrawl refused this request (HTTP 403): the page or the feature may be "
                "unsupported or blocked there; fetch another page or another provider",
            )
        if status == 400:
            return self.failure(
                REJECTED,
                f"firecrawl refused to scrape this page (HTTP 400){said(explain(body))}",
            )
        return None

    def parse(self, body: bytes, url: str) -> HostedPage:
        data = self.load_json(body)
        if not isinstance(data, dict):
            raise self.invalid("a JSON object")
        if data.get("success") is False:
            raise self.invalid("success" + said(explain_value(data)))
        content = data.get("data")
        if not isinstance(content, dict):
            raise self.invalid("data")
        metadata: Any = content.get("metadata")
        metadata = metadata if isinstance(metadata, dict) else {}
        _site_status(metadata.get("statusCode"))
        title = metadata.get("title")
        source = metadata.get("sourceURL") or metadata.get("url")
        markdown = content.get("markdown")
        if isinstance(markdown, str):
            page_format: Any = "markdown"
            text = markdown
        elif isinstance(content.get("html"), str):
            page_format, text = "html", content["html"]
        else:
            raise self.invalid("data.markdown")
        return HostedPage.of(text, source=source, title=title, format=page_format)


def _site_status(status: object) -> None:
    # Firecrawl answers 200 for a page the site itself refused; the site's status is here.
    if isinstance(status, int) and not isinstance(status, bool) and status >= 400:
        retryable = status in (408, 425, 429) or status >= 500
        hint = "try again later" if retryable else "check the address, or fetch another page"
        raise CapabilityError(
            HTTP_ERROR,
            f"the site answered HTTP {status} (read through firecrawl); {hint}",
            retryable=retryable,
        )
