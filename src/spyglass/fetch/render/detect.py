"""Does a statically fetched HTML page look like a script shell that only a browser can read?

``fetch.render = "auto"`` renders a page only when this says so. A shell has almost no
visible text *and* a positive sign that scripts build the page: an empty application root
(``<div id="root">``, ``#app``, ``#__next``, ``<app-root>``), a ``<noscript>`` asking for
JavaScript, a framework's markers with a script to run, or a body that shows nothing at all
(or only a loading notice) while it has a script to run. Little text alone is not enough (a
short page is just short), and a page with readable text is never rendered, however many
scripts it carries. The thresholds were chosen on the extraction corpora (docs/fetch.md,
"Rendering"): no ordinary page of WCXB dev or trafilatura-eval is taken for a shell.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lxml import etree
from lxml import html as lxml_html

from spyglass.extract.tree import parse

#: Fewer visible characters than this (outside scripts, styles and ``<noscript>``) is "little".
MAX_SHELL_TEXT = 400
#: An application root holding less visible text than this counts as empty.
MAX_ROOT_TEXT = 40

#: The ids single-page-app frameworks mount into, lowercased.
APP_ROOT_IDS = frozenset(
    {
        "root",
        "app",
        "__next",
        "__nuxt",
        "___gatsby",
        "svelte",
        "app-root",
        "react-root",
        "main-app",
        "application",
        "spa-root",
        "q-app",
    }
)
#: Elements frameworks render into by tag name (Angular and its relatives).
APP_ROOT_TAGS = frozenset({"app-root", "my-app", "ion-app"})
#: Attributes that mark a framework's mount point.
APP_ROOT_ATTRIBUTES = ("ng-app", "data-reactroot", "ng-version", "data-v-app", "x-data")
#: A short ``<noscript>`` that speaks of JavaScript is a note asking for it, in whatever
#: language it asks ("Bitte aktivieren Sie JavaScript", "Veuillez activer JavaScript").
_NOSCRIPT_ASKS = re.compile(r"\bjava\s*-?\s*script\b", re.IGNORECASE)
_FRAMEWORK_MARKERS = re.compile(
    r"__NEXT_DATA__|window\.__NUXT__|__INITIAL_STATE__|__APOLLO_STATE__|__remixContext"
    r"|data-server-rendered|ng-version|webpackJsonp|/_next/static/|/_nuxt/|\bcreateRoot\(",
)
#: All a body shows while its scripts load, when it shows anything (a page that is only this
#: is nothing without them), in the languages the corpora's pages are mostly written in.
_LOADING = re.compile(
    r"^(?:loading|please wait|one moment|initiali[sz]ing|starting|wird geladen|laden|"
    r"chargement|cargando|carregando|caricamento|ładowanie)\W*$",
    re.IGNORECASE,
)
#: ``<script type>`` values a browser runs; any other type is data (JSON-LD, templates).
_RUNNABLE = frozenset(
    {
        "",
        "module",
        "text/javascript",
        "application/javascript",
        "application/ecmascript",
        "text/ecmascript",
    }
)
_INVISIBLE = ("script", "style", "noscript", "template", "svg", "head")
_SPACE = re.compile(r"\s+")
#: A ``<noscript>`` at least this long is content, not a note asking for JavaScript.
_NOSCRIPT_NOTE = 300


@dataclass(frozen=True)
class Verdict:
    """Whether the page looks like a shell, and the signs that were seen (for notes and tests)."""

    shell: bool
    visible_chars: int
    signs: tuple[str, ...]


def looks_like_shell(html: str) -> Verdict:
    """Judge the decoded HTML of a statically fetched page."""
    if "<script" not in html.lower():
        # Nothing would run in a browser either: the static read is all there is.
        return Verdict(False, -1, ())
    # Parsed as extraction parses it: an XHTML page declaring its encoding is read too.
    tree = parse(html) if html.strip() else None
    if tree is None:
        return Verdict(False, 0, ())
    signs: list[str] = []
    runs = _runs_a_script(tree)
    if tree.xpath("//script") and _FRAMEWORK_MARKERS.search(html):
        signs.append("framework_markers")
    noscript_text = 0
    for noscript in tree.xpath("//body//noscript"):
        text = _SPACE.sub(" ", noscript.text_content() or "").strip()
        asks = len(text) < _NOSCRIPT_NOTE and _NOSCRIPT_ASKS.search(text) is not None
        if asks:
            signs.append("noscript_asks_for_javascript")
        else:
            # Some sites (forums) put the whole page there for readers without scripts,
            # and the static read already gives that text to the model.
            noscript_text += len(text)
    # From here on the tree holds only what a reader sees.
    etree.strip_elements(tree, *_INVISIBLE, with_tail=False)
    etree.strip_elements(tree, etree.Comment, with_tail=False)
    if _empty_root(tree):
        signs.append("empty_app_root")
    bodies = tree.xpath("//body")
    shown = _shown(bodies[0] if bodies else tree)
    visible = len(shown) + noscript_text
    if runs and not noscript_text and (not shown or _LOADING.match(shown)):
        # Whatever the page is, a reader without scripts sees nothing of it, whichever
        # framework (or none) builds it and wherever it mounts.
        signs.append("nothing_shown")
    signs = list(dict.fromkeys(signs))
    return Verdict(bool(signs) and visible < MAX_SHELL_TEXT, visible, tuple(signs))


def _runs_a_script(tree: lxml_html.HtmlElement) -> bool:
    """Whether the page has a script a browser would run (not JSON or a template)."""
    for script in tree.iter("script"):
        kind = (script.get("type") or "").strip().lower().split(";")[0].strip()
        if kind in _RUNNABLE and (script.get("src") or (script.text or "").strip()):
            return True
    return False


def _shown(element: lxml_html.HtmlElement) -> str:
    """The text of ``element``, its runs of white space as one space."""
    return _SPACE.sub(" ", element.text_content() or "").strip()


def _empty_root(tree: lxml_html.HtmlElement) -> bool:
    for element in tree.iter():
        tag = element.tag if isinstance(element.tag, str) else ""
        if not tag:
            continue
        ident = (element.get("id") or "").strip().lower()
        is_root = (
            ident in APP_ROOT_IDS
            or tag.lower() in APP_ROOT_TAGS
            or any(element.get(a) is not None for a in APP_ROOT_ATTRIBUTES)
        )
        if is_root and len(_shown(element)) < MAX_ROOT_TEXT:
            return True
    return False
