"""Optional robots.txt check (``fetch.respect_robots``), fetched through the same guard.

Off by default: each fetch is a person's approved request, not a crawl. When on, the file
is read with a 5 s deadline and a 500 KB cap, and kept for the rest of the turn. Following
RFC 9309: a missing file (4xx) allows everything; 401/403 and server errors disallow
everything; a file that cannot be reached at all allows (the fetch itself will then fail).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass

from protego import Protego

ROBOTS_TIMEOUT_SECONDS = 5.0
ROBOTS_MAX_BYTES = 500_000


@dataclass(frozen=True)
class RobotsAnswer:
    status: int
    body: bytes


#: Fetches a robots.txt URL; returns ``None`` when it could not be reached.
RobotsGetter = Callable[[str], Awaitable[RobotsAnswer | None]]


class RobotsRules:
    """Parsed rules of one site, or an "allow all" / "disallow all" decision."""

    def __init__(self, parser: Protego | None, allow_all: bool) -> None:
        self._parser = parser
        self._allow_all = allow_all

    @classmethod
    def from_answer(cls, answer: RobotsAnswer | None) -> RobotsRules:
        if answer is None:
            return cls(None, True)
        if answer.status in (401, 403) or answer.status >= 500:
            return cls(None, False)
        if answer.status >= 400 or answer.status < 200 or answer.status >= 300:
            return cls(None, True)
        return cls(Protego.parse(answer.body.decode("utf-8", errors="replace")), True)

    def allows(self, url: str, user_agent: str) -> bool:
        if self._parser is None:
            return self._allow_all
        return bool(self._parser.can_fetch(url, user_agent))


def robots_url(scheme: str, host: str, port: int | None) -> str:
    default = 443 if scheme == "https" else 80
    shown = f"[{host}]" if ":" in host else host
    authority = shown if port in (None, default) else f"{shown}:{port}"
    return f"{scheme}://{authority}/robots.txt"


async def allowed(
    url: str,
    robots: str,
    user_agent: str,
    get: RobotsGetter,
    cache: MutableMapping[str, RobotsRules],
) -> bool:
    """Whether ``url`` may be fetched under the site's robots.txt at ``robots``."""
    rules = cache.get(robots)
    if rules is None:
        rules = RobotsRules.from_answer(await get(robots))
        cache[robots] = rules
    return rules.allows(url, user_agent)
