"""``web.fetch`` through the executor: policy, approval, result shape, parts and the cache."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from mcp import Client

from spyglass.capabilities.fetch import CAPABILITY, NOTHING_TO_READ
from spyglass.core.context import Turn
from spyglass.core.outcome import Outcome
from spyglass.core.policy import WEB_ACCESS
from spyglass.mcp.server import build_server
from spyglass.paths import Paths
from spyglass.privacy.provenance import Source
from spyglass.runtime import Runtime, build_runtime
from spyglass.settings import Settings
from spyglass.state.pages import PAGE_CACHE
from tests.fetch.render.support import APP_JS, needs_browser, shell_with
from tests.mcp.support import ERAS, text_of
from tests.support.fetch_peers import Peer, page, redirect, serve_public

LONG = (
    "<html><head><title>Long read</title></head><body><article><h1>Long read</h1>"
    + "".join(
        f"<p>Paragraph number {n} says something worth reading about the topic.</p>"
        for n in range(400)
    )
    + "</article></body></html>"
)


@pytest.fixture
def site(runtime: Runtime) -> Iterator[Peer]:
    with Peer(
        {"/": page(LONG), "/cjk": page("漢字" * 60_000, "text/plain; charset=utf-8")}
    ) as peer:
        serve_public(runtime.seams, {"example.com": peer})
        yield peer


async def approved(runtime: Runtime, arguments: dict[str, Any], turn: Turn) -> Outcome:
    executor = runtime.executor
    pending = await executor.ainvoke("web.fetch", 1, arguments, channel="test", turn=turn)
    assert pending.status == "pending_confirmation", pending.to_dict()
    assert pending.pending_confirmation is not None
    return await executor.ainvoke(
        "web.fetch",
        1,
        arguments,
        channel="test",
        turn=turn,
        confirmation_token=pending.pending_confirmation.token,
    )


async def test_with_web_access_off_nothing_is_fetched(runtime: Runtime, site: Peer) -> None:
    outcome = await runtime.executor.ainvoke(
        "web.fetch", 1, {"url": "http://example.com/"}, channel="test"
    )
    assert outcome.status == "rejected"
    assert outcome.error is not None
    assert outcome.error.code == "POLICY_DISABLED"
    assert "spyglass policy enable" in outcome.error.message
    assert site.connections == 0


async def test_a_fetch_waits_for_approval_of_the_exact_url(runtime: Runtime, site: Peer) -> None:
    runtime.policy.set(WEB_ACCESS, True)
    outcome = await runtime.executor.ainvoke(
        "web.fetch", 1, {"url": "http://example.com/"}, channel="test"
    )
    assert outcome.status == "pending_confirmation"
    assert outcome.pending_confirmation is not None
    assert outcome.pending_confirmation.arguments == {"url": "http://example.com/"}
    assert outcome.pending_confirmation.provider == "direct"  # Spyglass reads it itself
    assert outcome.to_dict()["pending_confirmation"]["provider"] == "direct"
    assert site.connections == 0


async def test_an_approved_fetch_returns_the_first_part_in_the_contract_shape(
    runtime: Runtime, site: Peer
) -> None:
    runtime.policy.set(WEB_ACCESS, True)
    outcome = await approved(runtime, {"url": "http://example.com/", "max_chars": 2000}, Turn())
    assert outcome.status == "ok", outcome.to_dict()
    result = outcome.result
    assert result is not None
    assert result["url"] == result["final_url"] == "http://example.com/"
    assert result["status"] == 200
    assert result["content_type"] == "text/html"
    assert result["title"] == "Long read"
    assert result["offset"] == 0
    assert result["truncated"] is True
    assert result["next_offset"] == len(result["text"])
    assert result["total_chars"] > 2000
    assert result["redirected"] is False
    assert "redirect_chain" not in result
    assert result["retrieved_at"].endswith("Z")
    assert outcome.provider == "direct"
    audit = runtime.paths.audit_file.read_text()
    assert "example.com" not in audit


async def test_later_parts_come_from_the_turn_cache_without_a_new_download(
    runtime: Runtime, site: Peer
) -> None:
    runtime.policy.set(WEB_ACCESS, True)
    turn = Turn()
    first = await approved(runtime, {"url": "http://example.com/", "max_chars": 9000}, turn)
    assert first.result is not None
    texts = [first.result["text"]]
    offset = first.result.get("next_offset")
    while offset is not None:
        arguments = {"url": "http://example.com/", "offset": offset, "max_chars": 9000}
        outcome = await approved(runtime, arguments, turn)
        assert outcome.result is not None, outcome.to_dict()
        texts.append(outcome.result["text"])
        offset = outcome.result.get("next_offset")
    assert len(texts) >= 3
    assert len("".join(texts)) == first.result["total_chars"]
    assert site.requests["/"] == 1


async def test_a_turn_carried_on_by_another_process_reads_later_parts_without_fetching_again(
    runtime: Runtime, site: Peer
) -> None:
    runtime.policy.set(WEB_ACCESS, True)
    arguments = {"url": "http://example.com/", "max_chars": 9000}
    first = await approved(runtime, arguments, Turn(conversation_id="c1", id="t1"))
    assert first.result is not None and site.requests["/"] == 1
    # Another process on the same home; the turn as a paused turn's JSON gives it back (its
    # in-memory cache empty).
    elsewhere = build_runtime(runtime.paths)
    serve_public(elsewhere.seams, {"example.com": site})
    later = {**arguments, "offset": first.result["next_offset"]}
    pending = await elsewhere.executor.ainvoke(
        "web.fetch", 1, later, channel="test", turn=Turn(conversation_id="c1", id="t1")
    )
    assert pending.pending_confirmation is not None
    assert pending.pending_confirmation.notices == ()  # nothing will be sent anywhere
    second = await approved(elsewhere, later, Turn(conversation_id="c1", id="t1"))
    assert second.result is not None and second.result["offset"] == first.result["next_offset"]
    assert second.provider == "direct" and site.requests["/"] == 1
    # Another turn, or another conversation, never reads this turn's pages.
    for turn in (Turn(conversation_id="c1", id="t2"), Turn(conversation_id="c2", id="t1")):
        assert (await approved(elsewhere, later, turn)).status == "ok"
    assert site.requests["/"] == 3


async def test_a_kept_page_that_cannot_be_read_is_fetched_again_not_an_error(
    runtime: Runtime, site: Peer
) -> None:
    # An entry kept by another version of Spyglass, or damaged: a miss, never a failure.
    runtime.policy.set(WEB_ACCESS, True)
    await runtime.seams.get(PAGE_CACHE).put("c1/t1", "http://example.com/", b'{"url": 1}')
    outcome = await approved(
        runtime, {"url": "http://example.com/"}, Turn(conversation_id="c1", id="t1")
    )
    assert outcome.result is not None and outcome.result["text"]
    assert site.requests["/"] == 1


async def test_a_page_with_no_text_to_read_comes_back_empty_with_a_note_saying_so(
    runtime: Runtime,
) -> None:
    empty = (
        "<html><head><title>Clearance</title></head><body>"
        '<a href="#main">Skip to content</a><div id="root"></div></body></html>'
    )
    runtime.policy.set(WEB_ACCESS, True)
    with Peer({"/": page(empty)}) as peer:
        serve_public(runtime.seams, {"shop.example.com": peer})
        outcome = await approved(runtime, {"url": "http://shop.example.com/"}, Turn())
    assert outcome.status == "ok", outcome.to_dict()
    assert outcome.result is not None
    assert outcome.result["text"] == ""
    assert outcome.result["total_chars"] == 0
    assert outcome.result["note"] == NOTHING_TO_READ


async def test_an_unfollowed_redirect_is_not_called_a_page_without_text(
    runtime: Runtime,
) -> None:
    runtime.policy.set(WEB_ACCESS, True)
    with Peer({"/go": redirect("https://other.example.org/landing")}) as peer:
        serve_public(runtime.seams, {"shop.example.com": peer})
        outcome = await approved(runtime, {"url": "http://shop.example.com/go"}, Turn())
    assert outcome.result is not None
    assert outcome.result["redirected"] is True and outcome.result["text"] == ""
    assert "note" not in outcome.result


async def test_a_page_with_text_has_no_note(runtime: Runtime, site: Peer) -> None:
    runtime.policy.set(WEB_ACCESS, True)
    outcome = await approved(runtime, {"url": "http://example.com/"}, Turn())
    assert outcome.result is not None and outcome.result["text"]
    assert "note" not in outcome.result


async def test_an_offset_past_the_end_is_reported(runtime: Runtime, site: Peer) -> None:
    runtime.policy.set(WEB_ACCESS, True)
    outcome = await approved(runtime, {"url": "http://example.com/", "offset": 10**7}, Turn())
    assert outcome.status == "failed"
    assert outcome.error is not None
    assert outcome.error.code == "OFFSET_OUT_OF_RANGE"


async def test_a_part_is_shortened_to_fit_the_result_bound(runtime: Runtime, site: Peer) -> None:
    runtime.policy.set(WEB_ACCESS, True)
    outcome = await approved(
        runtime, {"url": "http://example.com/cjk", "max_chars": 100_000}, Turn()
    )
    assert outcome.status == "ok", outcome.to_dict()
    assert outcome.result is not None
    size = len(json.dumps(outcome.result, ensure_ascii=False).encode())
    assert size <= CAPABILITY.bounds.max_result_bytes
    assert outcome.result["truncated"] is True


def audit_events(runtime: Runtime) -> list[dict[str, Any]]:
    lines = runtime.paths.audit_file.read_text().splitlines()
    return [json.loads(line) for line in lines if line.strip()]


@pytest.mark.parametrize(
    ("url", "reason", "settings"),
    [
        ("http://127.0.0.1/", "private_address", {}),
        ("http://169.254.169.254/latest/", "private_address", {}),
        ("http://0x7f000001/", "private_address", {}),
        ("http://[::ffff:10.0.0.1]/", "private_address", {}),
        ("file:///etc/passwd", "scheme", {}),
        ("https://user:secret@example.com/", "credentials", {}),
        ("http://example.com\\@127.0.0.1/", "malformed_url", {}),
        ("https://nas.home.arpa/", "private_address", {}),
        ("http://hidden.onion/", "private_address", {}),
        ("https://shop.test/", "private_address", {}),
        ("https://router.home/", "private_address", {}),
        ("http://intranet/", "private_address", {}),
        ("https://ads.example.com/", "domain_denied", {"deny_domains": ["example.com"]}),
        ("https://example.org/", "domain_not_allowed", {"allow_domains": ["example.com"]}),
        ("https://example.com:8443/", "port", {"allowed_ports": [443]}),
        ("http://example.com/", "scheme", {"https_only": True}),
    ],
)
async def test_a_call_that_can_only_be_refused_is_refused_at_check_before_anyone_is_asked(
    runtime: Runtime, site: Peer, url: str, reason: str, settings: dict[str, Any]
) -> None:
    for key, value in settings.items():
        setattr(runtime.settings.fetch, key, value)
    runtime.policy.set(WEB_ACCESS, True)
    outcome = await runtime.executor.ainvoke("web.fetch", 1, {"url": url}, channel="test")
    assert outcome.status == "rejected", outcome.to_dict()
    assert outcome.stage == "check"
    assert outcome.pending_confirmation is None
    assert outcome.error is not None
    assert outcome.error.code == "FETCH_TARGET_REJECTED"
    assert outcome.error.reason == reason
    # No confirmation was ever issued: the audit log has no pending attempt.
    assert "pending_confirmation" not in runtime.paths.audit_file.read_text()
    assert [e["stage"] for e in audit_events(runtime)] == ["check"]
    assert site.connections == 0


async def test_a_delegated_channel_gets_the_real_reason_not_a_request_for_approval(
    paths: Paths, site: Peer
) -> None:
    runtime = build_runtime(paths, overrides={"channels.mcp.confirmation": "delegated"})
    serve_public(runtime.seams, {"example.com": site})
    runtime.policy.set(WEB_ACCESS, True)
    outcome = await runtime.executor.ainvoke(
        "web.fetch", 1, {"url": "http://127.0.0.1/"}, channel="mcp"
    )
    assert outcome.status == "rejected" and outcome.stage == "check"
    assert outcome.error is not None and outcome.error.reason == "private_address"


async def test_a_refusal_at_the_check_stage_is_repeated_on_an_approved_call(
    runtime: Runtime, site: Peer
) -> None:
    # Settings may change between the card and the approval: the approved call is checked
    # again, before anything is sent.
    runtime.policy.set(WEB_ACCESS, True)
    arguments = {"url": "http://example.com/"}
    pending = await runtime.executor.ainvoke("web.fetch", 1, arguments, channel="test")
    assert pending.pending_confirmation is not None
    runtime.settings.fetch.deny_domains = ["example.com"]
    outcome = await runtime.executor.ainvoke(
        "web.fetch",
        1,
        arguments,
        channel="test",
        confirmation_token=pending.pending_confirmation.token,
    )
    assert outcome.status == "rejected" and outcome.stage == "check"
    assert site.connections == 0


async def test_a_public_url_gets_a_card_whose_only_notice_is_that_it_may_be_rendered(
    runtime: Runtime, site: Peer
) -> None:
    runtime.policy.set(WEB_ACCESS, True)
    outcome = await runtime.executor.ainvoke(
        "web.fetch", 1, {"url": "http://example.com/"}, channel="test"
    )
    assert outcome.pending_confirmation is not None
    (notice,) = outcome.pending_confirmation.notices
    assert notice.kind == "fetch.render"
    assert "may be rendered in a headless browser" in notice.message
    assert "only its own site" in notice.message


async def test_with_rendering_off_a_public_url_gets_a_card_with_no_notice(paths: Paths) -> None:
    runtime = build_runtime(paths, settings=Settings.model_validate({"fetch": {"render": "off"}}))
    runtime.policy.set(WEB_ACCESS, True)
    outcome = await runtime.executor.ainvoke(
        "web.fetch", 1, {"url": "http://example.com/"}, channel="test"
    )
    assert outcome.pending_confirmation is not None
    assert outcome.pending_confirmation.notices == ()


async def test_when_rendering_may_reach_other_sites_the_card_says_so(paths: Paths) -> None:
    settings = Settings.model_validate({"fetch": {"render": "always", "render_hosts": "any"}})
    runtime = build_runtime(paths, settings=settings)
    runtime.policy.set(WEB_ACCESS, True)
    outcome = await runtime.executor.ainvoke(
        "web.fetch", 1, {"url": "http://example.com/"}, channel="test"
    )
    assert outcome.pending_confirmation is not None
    (notice,) = outcome.pending_confirmation.notices
    assert "will be rendered" in notice.message
    assert "other public sites too" in notice.message


async def test_always_rendering_without_a_browser_is_refused_before_anyone_is_asked(
    paths: Paths, site: Peer
) -> None:
    settings = Settings.model_validate(
        {"fetch": {"render": "always", "browser_path": "/nonexistent/chromium"}}
    )
    runtime = build_runtime(paths, settings=settings)
    serve_public(runtime.seams, {"example.com": site})
    runtime.policy.set(WEB_ACCESS, True)
    outcome = await runtime.executor.ainvoke(
        "web.fetch", 1, {"url": "http://example.com/"}, channel="test"
    )
    assert outcome.status == "rejected" and outcome.stage == "check"
    assert outcome.error is not None and outcome.error.code == "FETCH_RENDER_UNAVAILABLE"
    assert site.connections == 0


@needs_browser
@pytest.mark.browser
async def test_a_rendered_page_says_so_and_lists_the_other_hosts_it_contacted(
    paths: Paths,
) -> None:
    settings = Settings.model_validate(
        {"fetch": {"render_hosts": "any", "render_timeout_seconds": 60}}
    )
    runtime = build_runtime(paths, settings=settings)
    runtime.policy.set(WEB_ACCESS, True)
    js = "fetch('http://cdn.example.net/data.txt').catch(() => {});" + APP_JS
    with (
        Peer({"/": page(shell_with(js))}) as app,
        Peer({"*": page("data", "text/plain")}) as cdn,
    ):
        serve_public(runtime.seams, {"app.example.com": app, "cdn.example.net": cdn})
        outcome = await approved(runtime, {"url": "http://app.example.com/"}, Turn())
    assert outcome.status == "ok", outcome.to_dict()
    result = outcome.result
    assert result is not None
    assert result["rendered"] is True
    assert result["contacted_hosts"] == ["cdn.example.net"]
    assert "How otters use tools" in result["text"]
    assert "note" not in result
    # The audit log records that a call happened, never the hosts it reached.
    assert "cdn.example.net" not in runtime.paths.audit_file.read_text()


@needs_browser
@pytest.mark.browser
async def test_a_rendered_page_whose_script_reads_the_fragment_finds_it_empty(
    paths: Paths,
) -> None:
    runtime = build_runtime(
        paths, settings=Settings.model_validate({"fetch": {"render_timeout_seconds": 60}})
    )
    runtime.policy.set(WEB_ACCESS, True)
    js = "fetch('/leak/' + location.hash.slice(1)).catch(() => {});" + APP_JS
    with Peer({"/": page(shell_with(js)), "*": page("ok", "text/plain")}) as app:
        serve_public(runtime.seams, {"app.example.com": app})
        url = "http://app.example.com/#me@mail.example-4111111111111111"
        outcome = await approved(runtime, {"url": url}, Turn())
    assert outcome.status == "ok", outcome.to_dict()
    assert outcome.result is not None and outcome.result["rendered"] is True
    assert app.requests["/leak/"] == 1  # the script ran, and read an empty fragment
    assert [path for path in app.requests if "4111" in path] == []


@needs_browser
@pytest.mark.browser
async def test_a_rendered_page_that_navigates_to_a_refused_address_is_not_read_as_an_error_page(
    paths: Paths,
) -> None:
    runtime = build_runtime(
        paths, settings=Settings.model_validate({"fetch": {"render_timeout_seconds": 60}})
    )
    runtime.policy.set(WEB_ACCESS, True)
    js = APP_JS + "location.href = 'http://10.0.0.1/admin';"
    with Peer({"/": page(shell_with(js))}) as app:
        serve_public(runtime.seams, {"app.example.com": app})
        outcome = await approved(runtime, {"url": "http://app.example.com/"}, Turn())
    assert outcome.status == "ok", outcome.to_dict()
    result = outcome.result
    assert result is not None
    assert result["final_url"] == "http://app.example.com/", result
    assert result["rendered"] is False
    assert "rendering it failed" in result["note"]
    assert "ERR_" not in result["text"] and "chrome-error" not in json.dumps(result)


async def test_the_fetcher_and_the_result_carry_no_fragment(runtime: Runtime, site: Peer) -> None:
    runtime.policy.set(WEB_ACCESS, True)
    url = "http://example.com/#private-note"
    outcome = await approved(runtime, {"url": url, "max_chars": 500}, Turn())
    assert outcome.status == "ok", outcome.to_dict()
    assert outcome.result is not None
    assert outcome.result["url"] == outcome.result["final_url"] == "http://example.com/"
    assert list(site.requests) == ["/"]


async def test_a_provenanced_url_is_fetched_in_its_sources_spelling_not_the_models(
    runtime: Runtime, site: Peer
) -> None:
    runtime.policy.set(WEB_ACCESS, True)
    source = Source("http://example.com/?q=otters&utm_source=feed", "search", "result 1")
    for spelling in [
        "http://EXAMPLE.com:80/?q=%6Ftters&utm_source=feed#x",
        "http://example.com//?q=otters&utm_source=feed",
        "https://example.com/?q=otter%73",
    ]:
        turn = Turn(sources=[source])
        pending = await runtime.executor.ainvoke(
            "web.fetch", 1, {"url": spelling}, channel="test", turn=turn
        )
        assert pending.pending_confirmation is not None, (spelling, pending.to_dict())
        notices = pending.pending_confirmation.notices
        assert "provenance" in [n.kind for n in notices], spelling
        outcome = await approved(runtime, {"url": spelling}, turn)
        assert outcome.status == "ok", (spelling, outcome.to_dict())
    # Only the source's own spelling reached the site (its tracking parameter left out when
    # the model left it out); every variation the comparison forgave stayed here.
    assert site.targets == [
        "/?q=otters&utm_source=feed",
        "/?q=otters&utm_source=feed",
        "/?q=otters",
    ]


async def test_an_article_over_the_size_cap_is_returned_cut_and_says_so(
    runtime: Runtime, site: Peer
) -> None:
    runtime.settings.fetch.max_page_bytes = 20_000
    runtime.policy.set(WEB_ACCESS, True)
    outcome = await approved(runtime, {"url": "http://example.com/"}, Turn())
    assert outcome.status == "ok", outcome.to_dict()
    assert outcome.result is not None
    assert outcome.result["cut_at_bytes"] == 20_000
    assert outcome.result["text"].startswith("# Long read")
    assert "Paragraph number 399" not in outcome.result["text"]


@pytest.mark.parametrize(
    "arguments",
    [{"url": "http://example.com/", "max_chars": 100}, {"url": "x" * 2049}, {"url": "a", "y": 1}],
)
async def test_arguments_outside_the_schema_are_invalid(
    runtime: Runtime, arguments: dict[str, Any]
) -> None:
    outcome = await runtime.executor.ainvoke("web.fetch", 1, arguments, channel="test")
    assert outcome.error is not None
    assert outcome.error.code == "INVALID_ARGUMENTS"


def test_the_capability_is_read_only_external_and_needs_confirmation() -> None:
    assert CAPABILITY.requires_confirmation
    assert CAPABILITY.policy_key == WEB_ACCESS
    assert CAPABILITY.wire_name == "web_fetch"
    assert CAPABILITY.bounds.max_invocations_per_turn == 5


@pytest.mark.parametrize("era", ERAS)
async def test_an_mcp_client_that_cannot_elicit_gets_the_real_reason_not_a_request_to_approve(
    paths: Paths, era: str
) -> None:
    runtime = build_runtime(paths)
    runtime.policy.set(WEB_ACCESS, True)
    async with Client(build_server(runtime), mode=era) as client:
        result = await client.call_tool("web_fetch", {"url": "http://127.0.0.1/"})
    assert result.is_error
    text = text_of(result)
    assert "FETCH_TARGET_REJECTED" in text
    assert "CONFIRMATION_REQUIRED" not in text
    # No confirmation was ever issued: the audit log has no pending attempt.
    assert "pending_confirmation" not in runtime.paths.audit_file.read_text()


@pytest.mark.parametrize(
    "url", ["https://example.com/", "http://127.0.0.1/", "https://user:pw@example.org/a"]
)
def test_the_direct_only_route_the_precheck_takes_is_what_the_hosted_route_would_say(
    url: str,
) -> None:
    # The precheck skips loading the hosted readers when Spyglass alone reads pages; that
    # shortcut must answer as the full route does for the same settings.
    from spyglass.capabilities import fetch
    from spyglass.fetch.hosted import dispatch

    settings = Settings.model_validate({"fetch": {"providers": " direct ", "fallback": []}})
    assert fetch.DIRECT == dispatch.DIRECT
    route = dispatch.check(url, settings, capability="web.fetch", invocation_id="i-1")
    assert route == ([fetch.DIRECT], [])


@pytest.mark.parametrize("providers", ["direct", " direct "])
def test_the_direct_only_readiness_shortcut_is_what_the_full_check_would_say(
    providers: str,
) -> None:
    # web.fetch's readiness skips loading the hosted readers when Spyglass alone reads pages
    # (the MCP tool list waits for it); the full check must find nothing either.
    from spyglass.capabilities import fetch
    from spyglass.capabilities.readiness import fetch_problems

    settings = Settings.model_validate({"fetch": {"providers": providers, "fallback": []}})
    assert fetch.problems(settings) == fetch_problems(settings) == []


def test_a_hosted_reader_without_its_key_is_still_a_readiness_problem() -> None:
    from spyglass.capabilities import fetch

    settings = Settings.model_validate(
        {"fetch": {"providers": "direct", "fallback": ["firecrawl"]}}
    )
    problems = fetch.problems(settings)
    assert len(problems) == 1
    assert "firecrawl needs an API key" in problems[0]


async def test_a_focused_read_returns_the_passages_that_answer_within_the_focus_budget(
    runtime: Runtime, site: Peer
) -> None:
    runtime.policy.set(WEB_ACCESS, True)
    arguments = {"url": "http://example.com/", "focus": "What does paragraph number 317 say?"}
    outcome = await approved(runtime, arguments, Turn())
    assert outcome.status == "ok", outcome.to_dict()
    result = outcome.result
    assert result is not None
    assert "Paragraph number 317 says" in result["text"]
    assert len(result["text"]) <= runtime.settings.fetch.focus_max_chars
    assert "[…]" in result["text"]
    assert result["truncated"] is True
    assert "next_offset" not in result
    assert result["left_out_chars"] > result["total_chars"] - len(result["text"]) - 200


async def test_a_second_focus_on_a_page_read_this_turn_sends_nothing(
    runtime: Runtime, site: Peer
) -> None:
    runtime.policy.set(WEB_ACCESS, True)
    turn = Turn()
    first = await approved(runtime, {"url": "http://example.com/", "max_chars": 2000}, turn)
    assert first.status == "ok"
    connections = site.connections
    executor = runtime.executor
    arguments = {"url": "http://example.com/", "focus": "paragraph number 42", "max_chars": 1000}
    pending = await executor.ainvoke("web.fetch", 1, arguments, channel="test", turn=turn)
    assert pending.pending_confirmation is not None
    assert pending.pending_confirmation.arguments["focus"] == "paragraph number 42"
    second = await approved(runtime, arguments, turn)
    assert second.result is not None
    assert "Paragraph number 42 says" in second.result["text"]
    assert len(second.result["text"]) <= 1000
    assert site.connections == connections


async def test_a_focus_on_a_page_shorter_than_the_budget_returns_it_whole(
    runtime: Runtime, site: Peer
) -> None:
    runtime.policy.set(WEB_ACCESS, True)
    turn = Turn()
    plain = await approved(runtime, {"url": "http://example.com/", "max_chars": 100_000}, turn)
    focused = await approved(
        runtime, {"url": "http://example.com/", "focus": "topic", "max_chars": 100_000}, turn
    )
    assert plain.result is not None and focused.result is not None
    assert focused.result["text"] == plain.result["text"]
    assert focused.result["truncated"] is False
    assert "left_out_chars" not in focused.result


async def test_a_focus_from_an_offset_marks_passages_with_their_offsets_in_the_page(
    runtime: Runtime, site: Peer
) -> None:
    runtime.policy.set(WEB_ACCESS, True)
    turn = Turn()
    whole = await approved(runtime, {"url": "http://example.com/", "max_chars": 100_000}, turn)
    assert whole.result is not None
    text = whole.result["text"]
    start = text.index("Paragraph number 200")
    arguments = {"url": "http://example.com/", "focus": "paragraph number 350", "offset": start}
    outcome = await approved(runtime, arguments, turn)
    assert outcome.result is not None
    assert outcome.result["offset"] == start
    marks = re.findall(r"\[at (\d+)\]\n(.{25})", outcome.result["text"])
    assert marks
    assert all(text[int(at) :].startswith(following) for at, following in marks)
    assert all(int(at) >= start for at, _following in marks)
    assert "Paragraph number 350 says" in outcome.result["text"]
