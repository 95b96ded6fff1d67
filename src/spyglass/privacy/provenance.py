"""Provenance mode: in a conversation, fetch only URLs that came from the conversation.

A URL has provenance when the user typed it, a search in the conversation returned it, or it
is a link on a page read in the conversation (up to ``fetch.provenance_hops`` links away).
The records (:class:`Source`) are kept per conversation behind :class:`ProvenanceStore`, so
they outlive a restart. URLs are compared in a normal form that forgives what carries no data
(host case, default port, trailing slash, fragment, percent-encoding of plain characters, and
tracking parameters the source itself had) but never lets the candidate add anything: a
``utm_source=<secret>`` that the source did not have is a different URL.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol
from urllib.parse import parse_qsl, quote, unquote_plus, urlencode, urlsplit, urlunsplit

from spyglass.core.context import InvocationContext
from spyglass.core.outcome import Notice, Outcome
from spyglass.errors import CapabilityError
from spyglass.net.redirects import same_site

FETCH_NOT_PROVENANCED = "FETCH_NOT_PROVENANCED"
#: Notice kind of a URL nothing in the conversation explains (provenance mode off).
UNKNOWN = "provenance.unknown"
Origin = Literal["typed", "search", "link", "redirect"]
#: Links kept per page read: enough for any real page, bounded against a page of links.
MAX_LINKS_PER_PAGE = 1000

#: Query parameters that only say where a click came from. Dropped from a *source* URL
#: before comparing, never from the URL about to be fetched.
TRACKING = re.compile(
    r"^(?:utm_\w+|fbclid|gclid|dclid|gbraid|wbraid|msclkid|mc_cid|mc_eid|yclid|igshid|"
    r"_ga|_gl|ref_src|spm|srsltid)$",
    re.IGNORECASE,
)
_LINK = re.compile(
    r"\]\(\s*<?(https?://[^\s)>]+)>?(?:\s+\"[^\"]*\")?\s*\)|(https?://[^\s<>\"')\]]+)"
)
_TYPED = re.compile(
    r"(?<![\w@.-])((?:https?://)?(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}"
    r"(?::\d{1,5})?(?:[/?][^\s<>\"']*)?)",
    re.IGNORECASE,
)
_UNRESERVED = re.compile(r"%([0-9A-Fa-f]{2})")


@dataclass(frozen=True)
class Source:
    """Where one URL came from. ``hop`` counts links followed from a typed URL or result."""

    url: str
    origin: Origin
    label: str
    hop: int = 0


class ProvenanceStore(Protocol):
    """Where a conversation's sources are kept between turns (and restarts).

    Coroutines, like the history stores: no store blocks the event loop.
    """

    async def add(self, conversation_id: str, sources: Sequence[Source]) -> None: ...

    async def sources(self, conversation_id: str) -> list[Source]:
        """Every source recorded for the conversation, oldest first."""
        ...


class InMemoryProvenanceStore:
    """For a service without history: sources last as long as the process."""

    def __init__(self) -> None:
        self._items: dict[str, list[Source]] = {}
        self._lock = threading.Lock()

    async def add(self, conversation_id: str, sources: Sequence[Source]) -> None:
        with self._lock:
            self._items.setdefault(conversation_id, []).extend(sources)

    async def sources(self, conversation_id: str) -> list[Source]:
        with self._lock:
            return list(self._items.get(conversation_id, []))


# -- normal form ----------------------------------------------------------------------------


def _percent(text: str) -> str:
    """Plain characters decoded, the rest upper-case ``%XX``: one spelling per string."""

    def fix(match: re.Match[str]) -> str:
        char = chr(int(match.group(1), 16))
        return char if re.fullmatch(r"[A-Za-z0-9._~-]", char) else "%" + match.group(1).upper()

    return _UNRESERVED.sub(fix, text)


def normal(url: str, *, drop_tracking: bool = False) -> str | None:
    """The comparable form of ``url``; ``None`` when it is not an http(s) URL."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return None
    if parts.scheme.lower() not in {"http", "https"} or not parts.hostname:
        return None
    host = parts.hostname.rstrip(".")
    try:
        host = host.encode("idna").decode("ascii").lower()
    except UnicodeError:
        host = host.lower()
    userinfo = parts.netloc.rpartition("@")[0] if "@" in parts.netloc else ""
    default = 443 if parts.scheme.lower() == "https" else 80
    netloc = (userinfo + "@" if userinfo else "") + host
    if port is not None and port != default:
        netloc += f":{port}"
    path = _percent(parts.path) or "/"
    if len(path) > 1:
        path = path.rstrip("/") or "/"
    query = parts.query
    if drop_tracking and query:
        pairs = parse_qsl(query, keep_blank_values=True)
        query = urlencode([(k, v) for k, v in pairs if not TRACKING.match(k)], quote_via=quote)
    query = _percent(query)
    # Scheme left out: http and https of one address carry the same data.
    return netloc + path + ("?" + query if query else "")


def matching(url: str, sources: Iterable[Source]) -> list[Source]:
    """The sources ``url`` may claim: equal in normal form, or equal to the source with its
    tracking parameters removed (a URL may carry less than its source, never more)."""
    target = normal(url)
    if target is None:
        return []
    return [s for s in sources if target in {normal(s.url), normal(s.url, drop_tracking=True)}]


# -- where sources come from ---------------------------------------------------------------


def short(url: str) -> str:
    """``https://www.zoo.example/zebra/?a=1#top`` → ``zoo.example/zebra/?a=1``, for people."""
    text = re.sub(r"^https?://", "", url.split("#", 1)[0], flags=re.IGNORECASE)
    text = re.sub(r"^www\.", "", text, flags=re.IGNORECASE)
    return text if len(text) <= 80 else text[:79] + "…"


def typed(texts: Iterable[str]) -> list[Source]:
    """Addresses the user wrote, with or without ``https://``."""
    found: list[Source] = []
    for text in texts:
        for match in _TYPED.finditer(text):
            raw = match.group(1).rstrip(".,;:!?")
            if not re.match(r"https?://", raw, re.IGNORECASE):
                if "/" not in raw and not raw.lower().startswith("www."):
                    continue  # a bare "example.com" in prose is too often not an address
                raw = "https://" + raw
            found.append(Source(raw, "typed", "you typed this address in this conversation"))
    return found


def observed(outcome: Outcome, arguments: Any, sources: Sequence[Source]) -> list[Source]:
    """The sources an ok outcome adds: a search's results, a page's same-site redirects and
    its links (one hop further than the page itself)."""
    result = outcome.result
    if not outcome.ok or result is None or not isinstance(arguments, dict):
        return []
    if outcome.capability == "web.search":
        query = str(result.get("query") or arguments.get("query") or "")
        shown = query if len(query) <= 60 else query[:59] + "…"
        return [
            Source(hit["url"], "search", f"result {index} of your search '{shown}'")
            for index, hit in enumerate(result.get("results") or [], start=1)
            if isinstance(hit, dict) and isinstance(hit.get("url"), str)
        ]
    if outcome.capability == "web.fetch":
        url = str(result.get("url") or arguments.get("url") or "")
        known = matching(url, sources)
        hop = min((s.hop for s in known), default=0)
        page = short(str(result.get("final_url") or url))
        found: list[Source] = []
        host = urlsplit(url).hostname or ""
        for step in [*(result.get("redirect_chain") or []), result.get("final_url")]:
            if isinstance(step, str) and same_site(host, urlsplit(step).hostname or ""):
                label = known[0].label if known else f"where {short(url)} redirected"
                found.append(Source(step, "redirect", label, hop))
        text = str(result.get("text") or "")
        links = dict.fromkeys(m.group(1) or m.group(2) for m in _LINK.finditer(text))
        for link in list(links)[:MAX_LINKS_PER_PAGE]:
            link = link.rstrip(".,;:!?")
            found.append(
                Source(link, "link", f"a link on {page}, read in this conversation", hop + 1)
            )
        return found
    return []


# -- the check -----------------------------------------------------------------------------


def applies(context: InvocationContext) -> bool:
    """Provenance is checked in conversations Spyglass runs, when the owner turned it on."""
    return (
        context.settings.fetch.provenance == "conversation"
        and context.turn.conversation_id is not None
    )


def _known(context: InvocationContext) -> list[Source]:
    return [*typed(context.turn.private_texts), *context.turn.sources]


def _best(url: str, known: Sequence[Source], hops: int) -> Source | None:
    """The source ``url`` claims within ``hops`` links, chosen by how it came, never by how
    ``url`` spells it."""
    within = [s for s in matching(url, known) if s.hop <= hops]
    return min(within, key=lambda s: (s.hop, s.origin != "typed")) if within else None


def without_fragment(url: str) -> str:
    """``url`` up to its ``#``: the fragment is the reader's own and goes nowhere."""
    return url.split("#", 1)[0]


def spelled_as(source: Source, url: str) -> str:
    """What to send for ``url``, which matches ``source``: the source's own spelling, with the
    source's tracking parameters left out when ``url`` left them out, and no fragment.

    Every spelling :func:`normal` forgives (``%61`` for ``a``, a trailing slash, the scheme,
    ``:80``) is the model's choice; sending it would let the model signal through an approved
    fetch, so only the source's spelling leaves the machine.
    """
    own = without_fragment(source.url.strip())
    if normal(url) == normal(own):
        return own
    parts = urlsplit(own)
    kept = [
        pair
        for pair in parts.query.split("&")
        if pair and not TRACKING.match(unquote_plus(pair.split("=", 1)[0]))
    ]
    return urlunsplit(parts._replace(query="&".join(kept), fragment=""))


def address(context: InvocationContext, url: str) -> str:
    """The URL a ``web.fetch`` of ``url`` sends anywhere (the network, a rendering browser, a
    hosted reader): the spelling of the source it came from when it has one, and never a
    fragment, which a page's script or a reader would otherwise receive."""
    best = _best(url, _known(context), context.settings.fetch.provenance_hops)
    return spelled_as(best, url) if best is not None else without_fragment(url)


async def check_fetch(context: InvocationContext) -> list[Notice]:
    """Refuse a URL without provenance; say where an allowed one came from."""
    url: str = context.arguments["url"]
    known = _known(context)
    best = _best(url, known, context.settings.fetch.provenance_hops)
    if best is not None:
        return [Notice(kind="provenance", message=best.label, argument="url")]
    if context.turn.conversation_id is None:
        return []
    if not applies(context):
        return [Notice(UNKNOWN, "this address did not come from this conversation", "url")]
    hops = context.settings.fetch.provenance_hops
    why = (
        f"it is a link more than {hops} link(s) away from anything the user typed or a "
        "search returned"
        if matching(url, known)
        else "the user did not type it, no search here returned it, and no page read here "
        "links to it"
    )
    raise CapabilityError(
        FETCH_NOT_PROVENANCED,
        f"this address did not come from this conversation: {why}. Search for it first "
        "with web.search and fetch a result, or ask the user for the address.",
        status="rejected",
    )
