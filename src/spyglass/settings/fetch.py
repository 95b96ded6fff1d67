"""``[fetch]``: fetching pages, the hosted readers' tables and the address rules."""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from pydantic import Field, field_validator

from spyglass.net import hostnames
from spyglass.settings.base import (
    DEFAULT_USER_AGENT,
    NumberList,
    TextList,
    _Section,
    empty_list,
    section,
)
from spyglass.settings.search import ProviderSettings


class FetchSettings(_Section):
    """``[fetch]``: what ``web.fetch`` may reach, who reads the page and how much is read."""

    providers: str = Field(
        default="direct",
        description='"direct" (Spyglass reads the page itself), a hosted reader such as '
        '"firecrawl", or weighted "direct:70,firecrawl:30".',
    )
    fallback: TextList = Field(
        default_factory=empty_list,
        description="Ordered fetch providers tried when the chosen one fails retryably.",
    )

    redirects: Literal["none", "same-site", "all"] = Field(
        default="same-site", description="Which redirects are followed (each hop re-checked)."
    )
    allow_domains: TextList = Field(
        default_factory=empty_list, description="If set, only these hosts and their subdomains."
    )
    deny_domains: TextList = Field(
        default_factory=empty_list,
        description="Never these hosts or their subdomains (checked first).",
    )
    private_network: TextList = Field(
        default_factory=empty_list,
        description="Hosts on your own network web.fetch may read, each call still approved: "
        "names (wiki.home.arpa) or private addresses and ranges (192.168.1.0/24). Never "
        "loopback, link-local or cloud metadata.",
    )
    https_only: bool = Field(default=False, description="Refuse plain http URLs.")
    allowed_ports: NumberList = Field(
        default_factory=empty_list, description="Restrict destination ports (empty: any port)."
    )
    respect_robots: bool = Field(
        default=False, description="Check robots.txt (fetched through the same guard)."
    )
    max_chars: int = Field(
        default=20000, ge=500, le=100000, description="Default part size given to the model."
    )
    focus_max_chars: int = Field(
        default=4000,
        ge=500,
        le=100000,
        description="Default size of a focused read (web.fetch with focus): the outline and "
        "the passages that answer the model's question.",
    )
    max_page_bytes: int = Field(
        default=5_000_000,
        gt=0,
        description="Cap on a decoded page body, in bytes; a longer page is read up to the "
        "cap and marked cut_at_bytes.",
    )
    max_pdf_bytes: int = Field(
        default=20_000_000,
        gt=0,
        description="Cap on a decoded PDF body, in bytes; a larger PDF is refused.",
    )
    timeout_seconds: float = Field(
        default=15.0, gt=0, le=300, description="Total deadline of one fetch (hosted too)."
    )
    user_agent: str = Field(
        default=DEFAULT_USER_AGENT, description="User-Agent sent with every fetch."
    )
    provenance: Literal["off", "conversation"] = Field(
        default="off",
        description="conversation: in a conversation, only fetch URLs the user typed, a "
        "search returned, or a page read there links to.",
    )
    provenance_hops: int = Field(
        default=1,
        ge=1,
        le=5,
        description="How many links away from a typed URL or search result a fetch may go.",
    )

    # Rendering pages that need JavaScript (docs/fetch.md, "Rendering").
    render: Literal["off", "auto", "always"] = Field(
        default="auto",
        description="Render pages in a headless browser whose every request passes the "
        "guard: auto renders only pages whose static read is a script shell (little text, "
        "an empty app root, a noscript asking for JavaScript); always renders every HTML "
        "page; off never starts a browser. Without a browser, auto reads statically and "
        "says so.",
    )
    browser_path: str = Field(
        default="",
        description="Chromium or Chrome executable used for rendering; empty: Debian's "
        "/usr/bin/chromium, another chromium on PATH, or Playwright's own Chromium.",
    )
    render_hosts: Literal["same-site", "any"] = Field(
        default="same-site",
        description="Which hosts a rendered page may contact: same-site (the page's own "
        "registrable domain only) or any public host. Every request is checked by the guard "
        "either way.",
    )
    render_timeout_seconds: float = Field(
        default=10.0,
        gt=0,
        le=120,
        description="Total time a render may take, browser start included; added to "
        "fetch.timeout_seconds for a call that may render.",
    )
    render_max_bytes: int = Field(
        default=10_000_000,
        gt=0,
        description="Bytes a rendered page may download across all its requests; later "
        "requests are refused.",
    )
    render_max_requests: int = Field(
        default=100,
        ge=1,
        le=10_000,
        description="Requests a rendered page may make; later requests are refused.",
    )
    render_max_dom_nodes: int = Field(
        default=100_000,
        ge=100,
        description="Elements a rendered page may have; a larger page is not rendered.",
    )
    render_max_heap_mb: int = Field(
        default=256,
        ge=16,
        le=4096,
        description="JavaScript heap of the rendering browser, in megabytes; a page that "
        "needs more crashes its tab and is not rendered.",
    )

    # One table per hosted reader; each defaults to the same provider's [search.<name>].
    firecrawl: ProviderSettings = Field(
        default_factory=section(ProviderSettings),
        description="Firecrawl Scrape (key shared with search).",
    )
    tavily: ProviderSettings = Field(
        default_factory=section(ProviderSettings),
        description="Tavily Extract (key shared with search).",
    )
    keenable: ProviderSettings = Field(
        default_factory=section(ProviderSettings),
        description="Keenable Fetch (key shared with search).",
    )
    jina: ProviderSettings = Field(
        default_factory=section(ProviderSettings),
        description="Jina Reader (key optional).",
    )

    @field_validator("allow_domains", "deny_domains")
    @classmethod
    def _host_names(cls, value: list[str]) -> list[str]:
        return _normalised(value, hostnames.domain_rule)

    @field_validator("private_network")
    @classmethod
    def _private_hosts(cls, value: list[str]) -> list[str]:
        return _normalised(value, hostnames.private_network_entry)

    @property
    def call_timeout_seconds(self) -> float:
        """Deadline of one ``web.fetch`` call: the fetch, plus a render when one may run."""
        extra = self.render_timeout_seconds if self.render != "off" else 0.0
        return self.timeout_seconds + extra

    def provider(self, name: str) -> ProviderSettings:
        """The ``fetch.<name>`` table of a hosted reader, empty for any other name."""
        if name not in READER_TABLES:
            return ProviderSettings()
        value: ProviderSettings = getattr(self, name)
        return value

    def provider_sections(self) -> dict[str, ProviderSettings]:
        """Every hosted reader's table."""
        return {name: self.provider(name) for name in READER_TABLES}


#: The hosted readers that have a ``fetch.<name>`` table (a test keeps it in step).
READER_TABLES = ("firecrawl", "tavily", "keenable", "jina")


def _normalised(entries: list[str], rule: Callable[[str], str]) -> list[str]:
    """Each entry through ``rule`` (one of :mod:`spyglass.net.hostnames`), duplicates dropped."""
    out: list[str] = []
    for number, entry in enumerate(entries, start=1):
        try:
            value = rule(entry)
        except hostnames.HostnameError as exc:
            raise ValueError(f"entry {number} ({entry[:80]!r}) cannot be used: {exc}") from None
        if value not in out:
            out.append(value)
    return out
