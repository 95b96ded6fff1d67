"""The one sentence saying who receives an approved call."""

from __future__ import annotations

from spyglass.capabilities.recipients import recipient_line


def test_each_recipient_is_named_as_people_read_it() -> None:
    assert recipient_line("web.search", "DuckDuckGo") == "Search DuckDuckGo for:"
    assert recipient_line("web.fetch", "direct") == "Open this page (Spyglass reads it itself):"
    assert recipient_line("web.fetch", "Jina Reader") == (
        "Open this page through Jina Reader (it sees the address):"
    )
    assert recipient_line("web.search", None) is None
