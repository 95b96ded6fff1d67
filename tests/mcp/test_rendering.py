"""Text renderings: web content inside a fresh untrusted envelope, Spyglass's notes outside."""

from __future__ import annotations

import re

from spyglass.core.capability import Network
from spyglass.mcp.rendering import render_fetch, render_result, render_search
from tests.support.capabilities import make

ENVELOPE = re.compile(
    r'\A<untrusted_tool_output id="([0-9a-f]{32})">\n.*\n</untrusted_tool_output id="\1">',
    re.DOTALL,
)

SEARCH = {
    "query": "tide tables",
    "provider": "searxng",
    "results": [
        {
            "title": "Tides [2026] \\ harbour",
            "url": "https://example.org/tides (today)",
            "snippet": "High water at 06:12.",
        },
        {"title": "Second", "url": "https://example.net/", "snippet": ""},
    ],
    "result_count": 2,
    "retrieved_at": "2026-11-29T17:00:00Z",
}

PAGE = {
    "url": "https://example.org/a",
    "final_url": "https://example.org/a",
    "status": 200,
    "content_type": "text/html",
    "title": "Harbour tides",
    "text": "# Tides\n\nHigh water at 06:12.",
    "offset": 0,
    "next_offset": 29,
    "total_chars": 90,
    "truncated": True,
    "redirected": False,
    "retrieved_at": "2026-11-29T17:00:00Z",
}


def test_search_results_are_a_numbered_markdown_list_inside_the_envelope() -> None:
    text = render_search(make("web.search"), SEARCH)
    assert ENVELOPE.match(text)
    assert 'Search results for "tide tables" (2 from searxng):' in text
    assert "1. [Tides \\[2026\\] \\\\ harbour](https://example.org/tides%20%28today%29)" in text
    assert "   High water at 06:12." in text
    assert "2. [Second](https://example.net/)" in text


def test_each_rendering_gets_a_fresh_boundary() -> None:
    first = ENVELOPE.match(render_search(make("web.search"), SEARCH))
    second = ENVELOPE.match(render_search(make("web.search"), SEARCH))
    assert first and second
    assert first.group(1) != second.group(1)


def test_no_results_say_so() -> None:
    text = render_search(make("web.search"), {**SEARCH, "results": [], "result_count": 0})
    assert "No results." in text


def test_a_page_shows_title_url_and_text_and_the_next_part_hint_outside_the_envelope() -> None:
    text = render_fetch(make("web.fetch"), PAGE)
    match = ENVELOPE.match(text)
    assert match
    inside = match.group(0)
    assert "# Harbour tides" in inside
    assert "URL: https://example.org/a (HTTP 200, text/html)" in inside
    assert "High water at 06:12." in inside
    outside = text[match.end() :]
    assert "characters 0-29 of 90" in outside
    assert '{"url": "https://example.org/a", "offset": 29}' in outside


def test_the_last_part_has_no_next_part_hint() -> None:
    last = {**PAGE, "offset": 29, "text": "tail", "truncated": False}
    del last["next_offset"]
    text = render_fetch(make("web.fetch"), last)
    assert "the last part" in text
    assert "call web_fetch" not in text


def test_spyglass_s_note_on_a_read_follows_the_envelope() -> None:
    empty = {**PAGE, "text": "", "total_chars": 0, "note": "No text could be read."}
    del empty["next_offset"]
    text = render_fetch(make("web.fetch"), empty)
    match = ENVELOPE.match(text)
    assert match and "No text could be read." not in match.group(0)
    assert text[match.end() :] == "\n\n(Spyglass: No text could be read.)"


def test_a_cross_site_redirect_names_the_target_as_web_content_and_needs_a_new_call() -> None:
    redirect = {
        **PAGE,
        "final_url": "https://elsewhere.example/",
        "text": "",
        "redirected": True,
        "total_chars": 0,
    }
    del redirect["next_offset"]
    text = render_fetch(make("web.fetch"), redirect)
    match = ENVELOPE.match(text)
    assert match and "https://elsewhere.example/" in match.group(0)
    assert "new web_fetch call" in text[match.end() :]


def test_other_external_results_are_json_inside_the_envelope_and_local_ones_plain() -> None:
    external = render_result(make("web.echo"), {"echo": "hi"})
    assert ENVELOPE.match(external)
    local = render_result(make("system.echo", network=Network.LOCAL), {"echo": "hi"})
    assert local == '{\n  "echo": "hi"\n}'


def test_a_focused_read_says_how_much_was_left_out_and_how_to_read_a_part_whole() -> None:
    focused = {**PAGE, "text": "[at 40]\nHigh water at 06:12.", "left_out_chars": 61}
    del focused["next_offset"]
    text = render_fetch(make("web.fetch"), focused)
    match = ENVELOPE.match(text)
    assert match
    outside = text[match.end() :]
    assert "a focused read, 61 of 90 characters left out" in outside
    assert '{"url": "https://example.org/a", "offset": N} and no focus' in outside
