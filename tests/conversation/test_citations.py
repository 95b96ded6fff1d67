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


def three_results() -> Citations:
    citations = Citations()
    citations.add_outcome(
        ok(
            "web.search",
            {"results": [{"url": f"https://s{i}.org/", "title": f"S{i}"} for i in (1, 2, 3)]},
        )
    )
    return citations


def test_each_source_is_numbered_for_the_model_in_the_order_found() -> None:
    citations = three_results()
    search = ok("web.search", {"results": [{"url": "https://s2.org/", "title": "S2"}]})
    assert citations.numbered(search) == {
        "results": [{"cite": "[2]", "url": "https://s2.org/", "title": "S2"}]
    }
    page = ok("web.fetch", {"url": "https://new.org/", "title": "N", "text": "body"})
    citations.add_outcome(page)
    numbered = citations.numbered(page)
    assert numbered is not None and next(iter(numbered.items())) == ("cite", "[4]")
    # A page already found by the search keeps its number.
    again = ok("web.fetch", {"url": "https://s1.org/", "title": "S1", "text": "body"})
    citations.add_outcome(again)
    assert (citations.numbered(again) or {})["cite"] == "[1]"


def test_an_answer_citing_2_of_three_results_marks_exactly_that_one() -> None:
    cited = three_results().for_answer("Otters hold hands while sleeping [2].")
    assert [(c["n"], c["cited"]) for c in cited] == [(1, False), (2, True), (3, False)]


def test_markers_in_the_usual_shapes_are_read_and_numbers_beyond_the_sources_ignored() -> None:
    cited = three_results().for_answer("One [1, 3]. Two 【2】. Footnote[^3]. Nine [9].")
    assert [c["cited"] for c in cited] == [True, True, True]
    assert [c["cited"] for c in three_results().for_answer("No markers at all.")] == [
        False,
        False,
        False,
    ]
    assert [c["cited"] for c in three_results().for_answer("A list [x] and [10].")] == [
        False,
        False,
        False,
    ]
