"""Citations from search results and fetched pages."""

from __future__ import annotations

from typing import Any

from spyglass.conversation.citations import Citations
from spyglass.core.outcome import Outcome


def ok(capability: str, result: dict[str, Any]) -> Outcome:
    return Outcome("ok", capability, 1, "i", "execute", result=result)


def test_search_hits_become_citations_http_and_https_only_without_duplicates() -> None:
    citations = Citations()
    citations.add_outcome(
        ok(
            "web.search",
            {
                "results": [
                    {"url": "https://a.org/", "title": "A"},
                    {"url": "javascript:alert(1)", "title": "bad"},
                    {"url": "ftp://files.org/x", "title": "ftp"},
                    {"url": "https://a.org/", "title": "A again"},
                    {"url": "http://b.org/p", "title": "B"},
                ]
            },
        )
    )
    assert citations.to_list() == [
        {"url": "https://a.org/", "title": "A"},
        {"url": "http://b.org/p", "title": "B"},
    ]


def test_a_fetched_page_is_cited_by_its_final_url() -> None:
    citations = Citations()
    citations.add_outcome(
        ok(
            "web.fetch",
            {
                "url": "https://a.org/x",
                "final_url": "https://a.org/y",
                "title": "Y",
                "text": "body",
                "redirected": False,
            },
        )
    )
    assert citations.to_list() == [{"url": "https://a.org/y", "title": "Y"}]


def test_an_unfollowed_cross_site_redirect_is_not_a_source() -> None:
    citations = Citations()
    citations.add_outcome(
        ok(
            "web.fetch",
            {
                "url": "https://a.org/x",
                "final_url": "https://evil.org/",
                "text": "",
                "redirected": True,
            },
        )
    )
    assert citations.to_list() == []


def test_failed_outcomes_add_nothing() -> None:
    citations = Citations()
    citations.add_outcome(Outcome("failed", "web.search", 1, "i", "execute"))
    assert citations.to_list() == []
