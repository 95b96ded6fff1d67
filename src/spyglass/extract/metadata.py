"""A page's title, author, publication date and site name, as a short header to cite; and
its own description, for a page whose content cannot be read.

Read with trafilatura's metadata readers (OpenGraph and ``<meta>`` tags, then JSON-LD,
which wins where both speak), the author else from a ``rel="author"`` link, and the date as
:mod:`spyglass.extract.published` reads it (declared, or shown where the page marks a date;
never guessed from the running text). A field is left out when the page does not state it,
so the header is never padded with guesses.

Each field is said once: a title's parts that only name the site ("Kettles compared |
Kitchen Weekly") are left to the ``Site:`` line, a site named by its social-media handle
loses the ``@``, and a body that opens with the title as its heading does not repeat it
under the header (:func:`without_title`). The ``Site:`` line names the site alone: not its
slogan, the page's title or a copyright notice declared with it.
"""

from __future__ import annotations

import html
import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass
from urllib.parse import urlsplit

from lxml import html as lxml_html

from spyglass.extract.links import link_text
from spyglass.extract.published import published_date
from spyglass.extract.region import web_url
from spyglass.extract.tree import attribute_values
from spyglass.extract.visibility import shown_text
from spyglass.net.redirects import registrable_domain

logger = logging.getLogger(__name__)

#: Longest value kept for a field; longer ones are cut (author lists, marketing titles).
_MAX_FIELD = 160
#: Longest description kept: a forum's is the opening post's first few sentences.
_MAX_DESCRIPTION = 600
#: What sites put between a page's own title and their name ("Kettles | Kitchen Weekly",
#: "Kettles - Kitchen Weekly", "Kitchen Weekly » Kettles"); a colon or a hyphen inside a
#: word is the title's own punctuation. Its space is read from the first of a run only:
#: from each later one the rest of the run would be read again, for no other match.
_TITLE_SEPARATOR = re.compile(r"((?<!\s)\s+(?:[|\-–—·•»/]|::)\s+)")
_WORD = re.compile(r"\w+")
_NOT_ALPHANUMERIC = re.compile(r"[\W_]+")
#: A part of a site's name opening with a host's name this long or longer names the host.
_HOST_PREFIX = 5
#: What a copyright notice says besides the holder's name.
_COPYRIGHT = re.compile(r"©|\(c\)|\bcopyright\b|\ball rights reserved\b", re.IGNORECASE)
_YEARS = re.compile(r"\b(?:19|20)\d\d(?:\s*[-–]\s*(?:19|20)?\d\d)?\b")
_SENTENCE_END = re.compile(r"(?<=[a-z\)])\.\s+(?=[A-Z])")
_NOT_A_NAME_EDGE = re.compile(r"^[\s,.;:|\-–—]+|[\s,.;:|\-–—]+$")
_HEADING = re.compile(r"#{1,6}[ \t]+(.+)")
_LEADING_BLANK_LINES = re.compile(r"\A\s*\n")
#: Longest link text taken as an author's name.
_MAX_NAME = 80
#: What a link to an author says before the name: "By", "von", or a theme's "View all
#: posts by" ("Zeige alle Beiträge von").
_BYLINE = re.compile(
    r"^\s*(?:(?:view |see )?(?:all )?(?:posts|articles|entries|(?:alle )?beiträge|"
    r"artikel|zeige alle beiträge)\s+)?(?:by|von|par|por|door|przez)\s+(?=\S)",
    re.IGNORECASE,
)
#: What blog platforms write where a post's author has no name.
_NO_NAMES = frozenset(["unknown", "anonymous", "admin"])
#: How many blocks open a body: the title's heading may follow a category or breadcrumb.
_OPENING_BLOCKS = 2


@dataclass(frozen=True)
class Metadata:
    title: str | None = None
    author: str | None = None
    published: str | None = None
    site: str | None = None
    #: What the page says it is about (``description`` meta tags, OpenGraph, JSON-LD).
    description: str | None = None

    def header(self, *, described: bool = False) -> str:
        """``Title: ...`` lines for the fields present, or ``""`` when none is; with
        ``described``, the page's description too (where it is all there is to read)."""
        fields = (
            ("Title", self.title),
            ("Author", self.author),
            ("Published", self.published),
            ("Site", self.site),
            ("Description", self.description if described else None),
        )
        return "\n".join(f"{name}: {value}" for name, value in fields if value)


def page_metadata(tree: lxml_html.HtmlElement, url: str) -> Metadata:
    """The metadata ``tree`` declares; fields it does not declare are None."""
    from trafilatura.metadata import examine_meta, extract_meta_json

    try:
        found = extract_meta_json(tree, examine_meta(tree))
    # Malformed markup or JSON-LD, or JSON-LD nested deeper than Python's recursion reads.
    except (ValueError, TypeError, AttributeError, RecursionError) as exc:
        logger.info("page metadata could not be read: %s", type(exc).__name__)
        return Metadata()
    try:
        published = published_date(tree, url)
    except (ValueError, TypeError, AttributeError, OverflowError, RecursionError):
        published = None
    site = _clean(found.sitename)
    if site is not None:
        # A social-media handle (twitter:site) stands for the site's name.
        site = site.lstrip("@") or None
    title = _clean(found.title)
    # The host the page says it is from as well as the one it was read from: a copy served
    # from a mirror, a proxy or a test server still names its own site in its title.
    hosts = {urlsplit(address).hostname or "" for address in (url, own_url(tree, url))}
    title = _own_title(title, site, _host_names(hosts)) if title else None
    return Metadata(
        title=title,
        author=_clean(found.author) or _linked_author(tree),
        published=_clean(published),
        site=_own_site(site, title, _domain_names(hosts)) if site else None,
        description=_clean(found.description, _MAX_DESCRIPTION),
    )


def _linked_author(tree: lxml_html.HtmlElement) -> str | None:
    """The name on the page's first link to its author (``rel="author"``, a link relation
    that says what it points to), where no tag or JSON-LD names one."""
    for link in tree.iter("a"):
        rel = link.get("rel")
        if rel is not None and "author" in rel.lower().split():
            name = _clean(_BYLINE.sub("", " ".join(shown_text(link))))
            # A name, not an address, a sentence or a blog platform's stand-in.
            if not name or len(name) > _MAX_NAME or "://" in name:
                return None
            return None if name.lower() in _NO_NAMES else name
    return None


def own_url(tree: lxml_html.HtmlElement, url: str) -> str:
    """The page's address as it declares it (canonical link, else ``og:url``), else ``url``:
    a copy served from a mirror, a proxy or a test server keeps the path that says what
    kind of page it is (``/products/…``, ``/t/…``) and the host that names its site."""
    for address in _declared_addresses(tree):
        joined = web_url(url, address.strip())
        if joined is not None:
            return joined
    return url


def _declared_addresses(tree: lxml_html.HtmlElement) -> Iterator[str]:
    """Every address the page declares for itself, in the order :func:`own_url` tries
    them: its canonical links, then its OpenGraph URLs (read only if none will do)."""
    yield from attribute_values(tree, "link", "rel", "canonical", "href")
    yield from attribute_values(tree, "meta", "property", "og:url", "content")


def without_title(markdown: str, title: str | None) -> str:
    """``markdown`` without the heading that opens it saying ``title`` (the header above
    the body says it already); the heading may follow one block (a category, a
    breadcrumb, a kicker)."""
    if not title or not markdown:
        return markdown
    wanted = _words(title)
    opening = markdown.split("\n\n", _OPENING_BLOCKS)
    for position, block in enumerate(opening[:_OPENING_BLOCKS]):
        heading = _HEADING.fullmatch(block.strip())
        if heading is not None and _words(link_text(heading.group(1))) == wanted:
            rest = "\n\n".join(opening[:position] + opening[position + 1 :])
            # Blank lines (and lines of spaces) the heading leaves at the start go with it.
            return _LEADING_BLANK_LINES.sub("", rest) if rest.strip() else ""
    return markdown


def _host_names(hosts: set[str]) -> set[str]:
    """What the site may be called after its ``hosts``, in letters and digits only:
    ``www.cnx-software.com`` gives ``cnxsoftwarecom`` and ``cnxsoftware``."""
    names: set[str] = set()
    for host in hosts:
        labels = [_NOT_ALPHANUMERIC.sub("", label) for label in host.lower().split(".")]
        labels = [label for label in labels if label]
        if labels and labels[0] == "www":
            labels = labels[1:]
        names |= {"".join(labels), *labels[:-1]} - {""}
    return names


def _domain_names(hosts: set[str]) -> set[str]:
    """What the site is called after its registrable domain, in letters and digits only:
    ``forum.ms-society.org.uk`` gives ``mssociety`` and ``mssocietyorguk`` (a subdomain's
    ``forum``, ``blog`` or ``shop`` names no site)."""
    names: set[str] = set()
    for host in hosts:
        domain = registrable_domain(host.lower())
        labels = [_NOT_ALPHANUMERIC.sub("", label) for label in domain.split(".")]
        names |= {labels[0], "".join(labels)} - {""}
    return names


def _without_copyright(site: str) -> str | None:
    """A "site name" read from a copyright notice ("© 2000-2026 Newegg Inc.", "Copyright UC
    Regents. For more information…") as the name alone; None when the notice names no one."""
    if not (_COPYRIGHT.search(site) or _YEARS.match(site)):
        return site
    name = _YEARS.sub(" ", _COPYRIGHT.sub(" ", site))
    name = _SENTENCE_END.split(name, maxsplit=1)[0]
    name = _NOT_A_NAME_EDGE.sub("", " ".join(name.split()))
    return name.removeprefix("by ").strip() or None


def _own_site(site: str, title: str | None, names: set[str]) -> str | None:
    """The site's name without what pages put beside it: its slogan ("KFF - The
    independent source for health policy research") when one part of it names the host, or
    the page's own title ("Do you need 14 USB ports? - CNX Software"). None when the
    "name" is nothing but the page's title."""
    bare = _without_copyright(site)
    if bare is None:
        return None
    site = bare
    pieces = _TITLE_SEPARATOR.split(site)
    parts = [part for part in pieces[0::2] if _words(part)]
    if len(parts) > 1:
        # A part that spells the host wins over one that only opens with its name.
        for exact in (True, False):
            for part in parts:
                if _names_host(_words(part), names, exact=exact):
                    return part.strip()
    title_words = _words(title or "")
    if title_words and _words(site) == title_words:
        return None
    if len(parts) > 1 and title_words:
        rest = [part for part in parts if _words(part) != title_words]
        if rest and len(rest) < len(parts):
            return " - ".join(part.strip() for part in rest)
    return site


def _names_host(words: list[str], names: set[str], *, exact: bool) -> bool:
    """Whether ``words`` spell one of the host's ``names`` (``exact``), or open with a long
    one ("Stacy Blackman Consulting" on stacyblackman.com)."""
    joined = "".join(words)
    if exact:
        return joined in names
    return any(len(name) >= _HOST_PREFIX and joined.startswith(name) for name in names)


def _own_title(title: str, site: str | None, names: set[str]) -> str:
    """``title`` without the parts before or after it that only name the site: its declared
    name, or one of its hosts' ``names`` ("Peanut Butter Truffles - Elavegan")."""
    pieces = _TITLE_SEPARATOR.split(title)
    parts, separators = pieces[0::2], pieces[1::2]
    if len(parts) == 1:
        return title
    site_words = _words(site or "")
    if site_words == _words(title):
        # A site "named" by the page's whole title names nothing: only the host is asked.
        site_words = []
    start, end = 0, len(parts)
    # A part naming the site among other words ("Economy | Today's latest from Al
    # Jazeera") goes when it closes the title, where sites put their name; opening it, such
    # a part is more likely the page's own words.
    while end - start > 1 and _names_site(parts[end - 1], site_words, names, trailing=True):
        end -= 1
    while end - start > 1 and _names_site(parts[start], site_words, names, trailing=False):
        start += 1
    return parts[start] + "".join(separators[i - 1] + parts[i] for i in range(start + 1, end))


def _names_site(part: str, site: list[str], hosts: set[str], *, trailing: bool) -> bool:
    words = _words(part)
    if not words:
        return False
    if _names_host(words, hosts, exact=True):
        return True
    if not site:
        return False
    inside = set(words) <= set(site)
    return inside or (trailing and set(site) <= set(words))


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def _clean(value: object, longest: int = _MAX_FIELD) -> str | None:
    if not isinstance(value, str):
        return None
    # Some pages escape their markup twice ("Heating, Air &amp; Electrical").
    text = " ".join(html.unescape(value).split())
    if not text:
        return None
    return text if len(text) <= longest else text[: longest - 1].rstrip() + "…"
