"""``web.fetch`` through hosted readers. Adding one is a module here plus one line below.

``fetch.providers = "direct"`` (the default) means Spyglass reads the page itself; any name
below hands the URL to that company's service, which fetches and converts the page.
"""

from __future__ import annotations

from collections.abc import Mapping

from spyglass.fetch.hosted.firecrawl import FirecrawlScrape
from spyglass.fetch.hosted.jina import JinaReader
from spyglass.fetch.hosted.keenable import KeenableFetch
from spyglass.fetch.hosted.reader import DIRECT, Reader
from spyglass.fetch.hosted.tavily import TavilyExtract

READERS: Mapping[str, Reader] = {
    reader.name: reader
    for reader in (FirecrawlScrape(), TavilyExtract(), KeenableFetch(), JinaReader())
}

#: Every name ``fetch.providers`` and ``fetch.fallback`` accept.
FETCH_PROVIDERS: tuple[str, ...] = (DIRECT, *READERS)
