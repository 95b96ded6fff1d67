"""Provenance: what counts as the same URL, where sources come from, and the check."""

from __future__ import annotations

import pytest

from spyglass.core.context import Turn
from spyglass.core.outcome import Outcome
from spyglass.core.policy import WEB_ACCESS
from spyglass.paths import Paths
from spyglass.privacy.provenance import (
    InMemoryProvenanceStore,
    Source,
    matching,
    normal,
    observed,
    short,
    spelled_as,
    typed,
)
from spyglass.runtime import build_runtime

RESULT = Source("https://Zoo.Example/zebra/?id=7&utm_source=feed", "search", "result 1")


@pytest.mark.parametrize(
    "candidate",
    [
        "https://zoo.example/zebra?id=7&utm_source=feed",
        "https://ZOO.EXAMPLE:443/zebra/?id=7&utm_source=feed#stripes",
        "http://zoo.example/zebra?id=7",
        "https://zoo.example./%7A%65bra?id=7",
        "https://xn--zoo-.example/zebra?id=7".replace("xn--zoo-.", "zoo."),
    ],
)
def test_spellings_that_carry_no_extra_data_keep_their_provenance(candidate: str) -> None:
    assert matching(candidate, [RESULT]) == [RESULT]


@pytest.mark.parametrize(
    "candidate",
    [
        "https://zoo.example/zebra?id=7&utm_source=my+private+notes",
        "https://zoo.example/zebra?id=7&utm_medium=x",
        "https://zoo.example/zebra?id=8",
        "https://zoo.example/ZEBRA?id=7",
        "https://zoo.example/zebra/secret?id=7",
        "https://me:pw@zoo.example/zebra?id=7",
        "https://zoo.example:8443/zebra?id=7",
        "https://zoo.example.attacker.example/zebra?id=7",
        "https://zoo.example/zebra?id=7&",
        "ftp://zoo.example/zebra?id=7",
    ],
)
def test_any_added_or_changed_part_is_a_different_url(candidate: str) -> None:
    assert matching(candidate, [RESULT]) == []


def test_a_url_that_is_not_http_has_no_normal_form() -> None:
    assert normal("javascript:alert(1)") is None
    assert normal("https://[::1") is None


def test_typed_addresses_are_found_with_or_without_a_scheme() -> None:
    found = typed(["read https://a.example/x, then www.b.example and c.example/d. Not e.g."])
    assert [s.url for s in found] == [
        "https://a.example/x",
        "https://www.b.example",
        "https://c.example/d",
    ]


def ok(capability: str, result: dict[str, object]) -> Outcome:
    return Outcome("ok", capability, 1, "id", "execute", result=result)


def test_a_search_records_its_results_with_their_rank_and_query() -> None:
    found = observed(
        ok(
            "web.search",
            {"query": "zebra facts", "results": [{"url": "https://a.example/1"}, {"url": "x"}]},
        ),
        {"query": "zebra facts"},
        [],
    )
    assert [(s.url, s.label, s.hop) for s in found] == [
        ("https://a.example/1", "result 1 of your search 'zebra facts'", 0),
        ("x", "result 2 of your search 'zebra facts'", 0),
    ]


def test_a_page_records_its_links_one_hop_further_and_same_site_redirects_at_its_own() -> None:
    page = ok(
        "web.fetch",
        {
            "url": "https://a.org/start",
            "final_url": "https://www.a.org/moved",
            "redirect_chain": ["https://www.a.org/moved"],
            "text": "See [the zoo](https://zoo.example/z) and https://other.example/p.",
        },
    )
    known = [Source("https://a.org/start", "link", "a link on b.example", 1)]
    found = observed(page, {"url": "https://a.org/start"}, known)
    by_origin = {(s.origin, s.url, s.hop) for s in found}
    assert ("redirect", "https://www.a.org/moved", 1) in by_origin
    assert ("link", "https://zoo.example/z", 2) in by_origin
    assert ("link", "https://other.example/p", 2) in by_origin
    assert short("https://www.a.org/moved#x") == "a.org/moved"


def test_failed_calls_record_nothing() -> None:
    failed = Outcome("failed", "web.search", 1, "id", "execute")
    assert observed(failed, {"query": "q"}, []) == []


async def test_the_in_memory_store_keeps_sources_per_conversation() -> None:
    store = InMemoryProvenanceStore()
    await store.add("c1", [RESULT])
    assert await store.sources("c1") == [RESULT] and await store.sources("c2") == []


async def test_with_provenance_on_an_unknown_url_is_refused_before_anyone_is_asked(
    paths: Paths,
) -> None:
    runtime = build_runtime(paths, overrides={"fetch.provenance": "conversation"})
    runtime.policy.set(WEB_ACCESS, True)
    turn = Turn(conversation_id="c1", private_texts=("tell me about zebras",))
    outcome = await runtime.executor.ainvoke(
        "web.fetch", 1, {"url": "https://made-up.example/"}, channel="console", turn=turn
    )
    assert outcome.status == "rejected" and outcome.stage == "check"
    assert outcome.error is not None and outcome.error.code == "FETCH_NOT_PROVENANCED"
    assert "Search for it first" in outcome.error.message


async def test_with_provenance_on_a_search_result_is_asked_for_and_says_where_it_came_from(
    paths: Paths,
) -> None:
    runtime = build_runtime(paths, overrides={"fetch.provenance": "conversation"})
    runtime.policy.set(WEB_ACCESS, True)
    turn = Turn(conversation_id="c1", sources=[RESULT])
    outcome = await runtime.executor.ainvoke(
        "web.fetch", 1, {"url": "https://zoo.example/zebra?id=7"}, channel="console", turn=turn
    )
    assert outcome.pending_confirmation is not None
    # (fetch.render's notice that the page may be rendered comes after, on every such card.)
    notice, *_ = outcome.pending_confirmation.notices
    assert (notice.kind, notice.message) == ("provenance", "result 1")


async def test_links_further_than_the_hop_limit_are_refused_with_the_reason(
    paths: Paths,
) -> None:
    runtime = build_runtime(paths, overrides={"fetch.provenance": "conversation"})
    runtime.policy.set(WEB_ACCESS, True)
    far = Source("https://deep.example/", "link", "a link on b.example", 2)
    turn = Turn(conversation_id="c1", sources=[far])
    outcome = await runtime.executor.ainvoke(
        "web.fetch", 1, {"url": far.url}, channel="console", turn=turn
    )
    assert outcome.error is not None and outcome.error.code == "FETCH_NOT_PROVENANCED"
    assert "more than 1 link(s) away" in outcome.error.message


async def test_with_provenance_off_an_unknown_url_is_asked_for_with_a_notice(
    paths: Paths,
) -> None:
    runtime = build_runtime(paths)
    runtime.policy.set(WEB_ACCESS, True)
    turn = Turn(conversation_id="c1")
    outcome = await runtime.executor.ainvoke(
        "web.fetch", 1, {"url": "https://made-up.example/"}, channel="console", turn=turn
    )
    assert outcome.pending_confirmation is not None
    kinds = [n.kind for n in outcome.pending_confirmation.notices]
    assert kinds == ["provenance.unknown", "fetch.render"]


async def test_outside_a_conversation_provenance_does_not_apply(paths: Paths) -> None:
    runtime = build_runtime(paths, overrides={"fetch.provenance": "conversation"})
    runtime.policy.set(WEB_ACCESS, True)
    outcome = await runtime.executor.ainvoke(
        "web.fetch", 1, {"url": "https://typed-on-the-cli.example/"}, channel="cli"
    )
    assert outcome.status == "pending_confirmation"


@pytest.mark.parametrize(
    ("candidate", "sent"),
    [
        ("http://Zoo.example:80/%7Aebra/?a=1#secret", "https://zoo.example/zebra?a=1"),
        ("https://zoo.example/zebra/?a=1", "https://zoo.example/zebra?a=1"),
        ("https://zoo.example/zebra?%61=1", "https://zoo.example/zebra?a=1"),
    ],
)
def test_a_matching_url_is_sent_in_its_sources_spelling_without_a_fragment(
    candidate: str, sent: str
) -> None:
    source = Source("https://zoo.example/zebra?a=1#top", "search", "result 1")
    assert matching(candidate, [source]) == [source]
    assert spelled_as(source, candidate) == sent


def test_a_url_that_dropped_tracking_parameters_is_sent_as_its_source_without_them() -> None:
    source = Source("https://zoo.example/z?utm_source=feed&id=7&gclid=x", "search", "result 1")
    assert spelled_as(source, "https://zoo.example/z?id=7") == "https://zoo.example/z?id=7"
