"""Which redirects are followed (``fetch.redirects``) and how their targets are found.

``same-site`` compares registrable domains (eTLD+1) from the public suffix list bundled
with tldextract; the list is never downloaded, so the decision needs no network.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    import httpx
    import tldextract

MAX_HOPS = 5
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})

Mode = Literal["none", "same-site", "all"]


@lru_cache(maxsize=1)
def _extractor() -> tldextract.TLDExtract:
    # suffix_list_urls=() and cache_dir=None: the bundled snapshot only, no HTTP, no files.
    # Private suffixes count too: alice.github.io and bob.github.io are different sites.
    # Imported on first use (with requests under it, a tenth of a second): the provenance
    # and pending-turn modules import this one at every start without comparing any site.
    import tldextract

    return tldextract.TLDExtract(
        suffix_list_urls=(), cache_dir=None, include_psl_private_domains=True
    )


def registrable_domain(host: str) -> str:
    """``news.example.co.uk`` → ``example.co.uk``; an IP or bare suffix stays as it is."""
    parts = _extractor()(host)
    domain: str = parts.top_domain_under_public_suffix
    return domain or host


def same_site(a: str, b: str) -> bool:
    return registrable_domain(a.lower()) == registrable_domain(b.lower())


@dataclass(frozen=True)
class RedirectPolicy:
    mode: Mode = "same-site"

    def follows(self, current_host: str, next_host: str) -> bool:
        if self.mode == "all":
            return True
        if self.mode == "none":
            return False
        return same_site(current_host, next_host)


def location(response: httpx.Response) -> str | None:
    """The absolute target of a redirect response, or ``None`` if it is not one."""
    import httpx  # already loaded by whoever holds a response

    if response.status_code not in REDIRECT_STATUSES:
        return None
    value: str = response.headers.get("location", "")
    if not value:
        return None
    try:
        joined: httpx.URL = response.url.join(value.strip())
        return str(joined)
    except (httpx.InvalidURL, ValueError):
        # Let the guard explain what is wrong with it.
        return value.strip()
