"""The visible text of a page's main region, for pages that are not articles.

Article extractors keep the densest run of prose and drop the rest, which is right for a
news story and wrong for a product grid, a forum thread or a service page, whose content is
many short blocks. This walks the ``<main>`` element (or ``role="main"``, else ``<body>``)
and keeps its visible text as light Markdown, skipping navigation, headers, footers,
asides, forms, hidden elements and blocks whose id or class names them as boilerplate.
The tree is only read, never changed.
"""

from __future__ import annotations

import re
from urllib.parse import urljoin

from lxml import html as lxml_html

_SKIP_TAGS = frozenset(
    [
        "script",
        "style",
        "noscript",
        "template",
        "svg",
        "iframe",
        "object",
        "canvas",
        "nav",
        "header",
        "footer",
        "aside",
        "form",
        "button",
        "select",
        "option",
        "input",
        "textarea",
        "dialog",
        "head",
        "title",
        "meta",
        "link",
    ]
)
_BLOCK_TAGS = frozenset(
    [
        "p",
        "div",
        "li",
        "ul",
        "ol",
        "dl",
        "dd",
        "dt",
        "section",
        "article",
        "main",
        "table",
        "tr",
        "blockquote",
        "pre",
        "figure",
        "figcaption",
        "address",
        "details",
        "summary",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "hr",
        "br",
    ]
)
_HEADINGS = {f"h{n}": n for n in range(1, 7)}
_BOILERPLATE = re.compile(
    r"(^|[\s_-])(nav|navbar|navigation|menu|breadcrumbs?|footer|header|sidebar|cookies?|"
    r"consent|banner|newsletter|social|share|sharing|popup|modal|skip)([\s_-]|$)",
    re.IGNORECASE,
)
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.IGNORECASE)


def main_region(tree: lxml_html.HtmlElement) -> lxml_html.HtmlElement:
    found = tree.xpath("//main|//*[@role='main']")
    if found:
        element: lxml_html.HtmlElement = found[0]
        return element
    body = tree.find(".//body")
    return body if body is not None else tree


def region_markdown(tree: lxml_html.HtmlElement, base: str) -> str:
    """Visible text of the main region as Markdown (headings, list items, links)."""
    return element_markdown(main_region(tree), base)


def element_markdown(root: lxml_html.HtmlElement, base: str) -> str:
    """Visible text of ``root`` and its descendants as Markdown, boilerplate skipped."""
    out: list[str] = []
    _walk(root, root, base, out)
    lines = (" ".join(line.split()) for line in "".join(out).split("\n"))
    return "\n\n".join(line for line in lines if line)


def _skipped(element: lxml_html.HtmlElement, root: lxml_html.HtmlElement) -> bool:
    if element.tag in _SKIP_TAGS:
        return True
    if element is root:
        return False
    if element.get("hidden") is not None or element.get("aria-hidden") == "true":
        return True
    if _HIDDEN_STYLE.search(element.get("style") or ""):
        return True
    names = " ".join(filter(None, (element.get("id"), element.get("class"), element.get("role"))))
    return bool(names) and _BOILERPLATE.search(names) is not None


def _walk(
    element: lxml_html.HtmlElement, root: lxml_html.HtmlElement, base: str, out: list[str]
) -> None:
    tag = element.tag if isinstance(element.tag, str) else None
    if tag is None or _skipped(element, root):
        if element.tail:
            out.append(element.tail)
        return
    block = tag in _BLOCK_TAGS
    if block:
        out.append("\n")
    if tag in _HEADINGS:
        out.append("#" * _HEADINGS[tag] + " ")
    elif tag == "li":
        out.append("- ")
    link = _href(element, base) if tag == "a" else None
    if link:
        out.append("[")
    if element.text:
        out.append(element.text)
    for child in element:
        _walk(child, root, base, out)
    if link:
        out.append(f"]({link})")
    if block:
        out.append("\n")
    elif tag in ("td", "th"):
        out.append(" ")
    if element.tail:
        out.append(element.tail)


def _href(element: lxml_html.HtmlElement, base: str) -> str | None:
    href = (element.get("href") or "").strip()
    if not href or not element.text_content().strip():
        return None
    absolute = urljoin(base, href)
    return absolute if absolute.startswith(("http://", "https://")) else None
