"""Text content for MCP tool results: Markdown a person or model can read.

Structured content carries the raw result; the text block is a rendering of it. Everything
that came from the web (titles, snippets, page text, URLs a page redirected to) sits inside the
untrusted envelope; Spyglass's own notes (how to read the next part) stay outside it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from spyglass.core.capability import Capability, Network
from spyglass.untrusted.wrapping import wrap as wrap_untrusted

Renderer = Callable[[Capability, Mapping[str, Any]], str]


def render_result(capability: Capability, result: Mapping[str, Any]) -> str:
    """The text block for a successful call of ``capability``."""
    renderer = RENDERERS.get(capability.name, _render_generic)
    return renderer(capability, result)


def _render_generic(capability: Capability, result: Mapping[str, Any]) -> str:
    body = json.dumps(result, ensure_ascii=False, indent=2)
    if capability.network is Network.EXTERNAL:
        return wrap_untrusted(body)
    return body


def _link_text(text: str) -> str:
    # Square brackets and backslashes would end or bend the Markdown link early.
    return text.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")


def _link_target(url: str) -> str:
    # Parentheses and spaces would end the link target early; percent-encoding keeps the URL.
    return url.replace(" ", "%20").replace("(", "%28").replace(")", "%29")


def render_search(capability: Capability, result: Mapping[str, Any]) -> str:
    """A numbered Markdown list of results, inside the untrusted envelope."""
    results = result.get("results") or []
    provider = result.get("provider", "?")
    lines = [f"Search results for {json.dumps(result.get('query', ''), ensure_ascii=False)}"]
    lines[0] += f" ({len(results)} from {provider}):"
    if not results:
        lines.append("No results.")
    for number, item in enumerate(results, start=1):
        title = _link_text(str(item.get("title") or item.get("url", "")))
        lines.append(f"{number}. [{title}]({_link_target(str(item.get('url', '')))})")
        snippet = str(item.get("snippet") or "").strip()
        if snippet:
            lines.append(f"   {snippet}")
    notes = result.get("notes")
    if isinstance(notes, list):
        lines.extend(f"Note: {note}" for note in notes)
    body = wrap_untrusted("\n".join(lines))
    if result.get("partial"):
        body += "\n(Spyglass: these results are partial; the provider answered only in part.)"
    return body


def render_fetch(capability: Capability, result: Mapping[str, Any]) -> str:
    """The page's Markdown with its title and URL, and a hint for reading the next part."""
    final_url = str(result.get("final_url") or result.get("url", ""))
    if result.get("redirected") and not result.get("text"):
        # The redirect target came from the page's server, so it is web content too.
        return (
            wrap_untrusted(f"The page at {result.get('url', '')} redirects to: {final_url}")
            + "\n(Spyglass did not follow this cross-site redirect. Reading the target is a new "
            "web_fetch call with its URL, which the owner approves separately.)"
        )
    header = []
    title = result.get("title")
    if title:
        header.append(f"# {title}")
    header.append(
        f"URL: {final_url} (HTTP {result.get('status', '?')}, {result.get('content_type', '?')})"
    )
    body = wrap_untrusted("\n".join(header) + "\n\n" + str(result.get("text", "")))
    note = result.get("note")
    if note:
        # Spyglass's own words about the read (no browser to render it, no text at all).
        body += f"\n\n(Spyglass: {note})"
    offset = int(result.get("offset", 0))
    shown = len(str(result.get("text", "")))
    total = result.get("total_chars", shown)
    next_offset = result.get("next_offset")
    left_out = result.get("left_out_chars")
    if left_out:
        url = json.dumps(result.get("url", final_url))
        body += (
            f"\n\n(Spyglass: a focused read, {left_out} of {total} characters left out. To "
            f'read a part whole, call web_fetch with {{"url": {url}, "offset": N}} and no '
            "focus, N an offset marked above.)"
        )
    elif next_offset is not None:
        arguments = json.dumps({"url": result.get("url", final_url), "offset": next_offset})
        body += (
            f"\n\n(Spyglass: characters {offset}-{offset + shown} of {total}. More text follows: "
            f"call web_fetch with {arguments} to read the next part.)"
        )
    elif offset:
        body += f"\n\n(Spyglass: the last part, characters {offset}-{offset + shown} of {total}.)"
    return body


RENDERERS: dict[str, Renderer] = {
    "web.search": render_search,
    "web.fetch": render_fetch,
}
