"""The built-in search providers. Adding one is a module here plus one line in ``PROVIDERS``."""

from __future__ import annotations

from collections.abc import Mapping

from spyglass.search.provider import Provider
from spyglass.search.providers.brave import Brave
from spyglass.search.providers.duckduckgo import DuckDuckGo
from spyglass.search.providers.exa import Exa
from spyglass.search.providers.firecrawl import Firecrawl
from spyglass.search.providers.kagi import Kagi
from spyglass.search.providers.keenable import Keenable
from spyglass.search.providers.searxng import SearXNG
from spyglass.search.providers.tavily import Tavily

PROVIDERS: Mapping[str, Provider] = {
    provider.name: provider
    for provider in (
        SearXNG(),
        DuckDuckGo(),
        Brave(),
        Tavily(),
        Kagi(),
        Exa(),
        Firecrawl(),
        Keenable(),
    )
}
