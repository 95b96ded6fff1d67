"""What the person approving a page read is told, and why it asks under ``flagged``."""

from __future__ import annotations

from spyglass.capabilities.fetch_notices import (
    FALLBACK_READER,
    HOSTED_NOTICE,
    NOT_FROM_CONVERSATION,
    ON_OWN_NETWORK,
    unusual,
)
from spyglass.core.outcome import DIRECT_RECIPIENT, RECIPIENT, Notice
from spyglass.fetch.hosted.dispatch import announce
from spyglass.net.private import NOTICE_KIND


def test_a_page_read_asks_under_flagged_when_its_address_is_unusual_and_says_why() -> None:
    direct = Notice(RECIPIENT, DIRECT_RECIPIENT)
    came = Notice("provenance", "result 1 of your search 'tides'", "url")
    assert unusual([direct, came]) == []
    assert unusual([direct, Notice("provenance.unknown", "?", "url")]) == [NOT_FROM_CONVERSATION]
    assert unusual([direct, came, Notice(NOTICE_KIND, "own network", "url")]) == [ON_OWN_NETWORK]
    assert unusual([Notice(RECIPIENT, "Firecrawl"), came]) == [
        "Firecrawl will fetch this page for you"
    ]
    # No recipient: a later part of a page read this turn, from the cache; nothing is sent.
    assert unusual([]) == []


def test_a_page_read_spyglass_may_hand_to_a_fallback_reader_asks_under_flagged() -> None:
    [told] = announce(["direct", "jina"])
    assert told.kind == HOSTED_NOTICE
    came = Notice("provenance", "result 1 of your search 'tides'", "url")
    assert unusual([Notice(RECIPIENT, DIRECT_RECIPIENT), came, told]) == [FALLBACK_READER]
