"""``web.fetch`` through each hosted reader, end to end: a loopback stand-in speaks each
provider's wire format, and the executor runs the whole path from the card to the audit."""

from __future__ import annotations

import json
from typing import Any

import pytest

from spyglass.core.context import Turn
from spyglass.core.policy import WEB_ACCESS
from spyglass.paths import Paths
from spyglass.runtime import Runtime, build_runtime
from spyglass.settings import Settings
from tests.search.replay import SECRET, ReplayServer, Reply
from tests.support.fetch_peers import Peer, page, serve_public

URL = "https://news.example.com/storm"
BODY = "Heavy rain is expected tonight across the whole region. " * 40

#: Each reader's path and a recorded success in its own wire format.
WIRE: dict[str, tuple[str, Any]] = {
    "firecrawl": (
        "/v2/scrape",
        {"success": True, "data": {"markdown": BODY, "metadata": {"title": "Storm"}}},
    ),
    "tavily": ("/extract", {"results": [{"url": URL, "raw_content": BODY}], "failed_results": []}),
    "keenable": ("/v1/fetch", {"url": URL, "title": "Storm", "content": BODY}),
    "jina": ("/" + URL, {"code": 200, "data": {"title": "Storm", "url": URL, "content": BODY}}),
}
DISPLAY = {"firecrawl": "Firecrawl", "tavily": "Tavily", "keenable": "Keenable", "jina": "Jina"}


def _runtime(paths: Paths, name: str, replay: ReplayServer) -> Runtime:
    settings = Settings.model_validate(
        {
            "fetch": {
                "providers": name,
                name: {"base_url": replay.url, "api_key": SECRET},
            }
        }
    )
    runtime = build_runtime(paths, settings=settings)
    runtime.policy.set(WEB_ACCESS, True)
    return runtime


def _audit(paths: Paths) -> list[dict[str, Any]]:
    return [json.loads(line) for line in paths.audit_file.read_text().splitlines()]


@pytest.mark.parametrize("name", sorted(WIRE))
async def test_a_page_read_through_each_reader_names_it_from_the_card_to_the_audit(
    paths: Paths, replay: ReplayServer, name: str
) -> None:
    path, answer = WIRE[name]
    replay.set(path, Reply(body=answer))
    runtime = _runtime(paths, name, replay)
    turn = Turn()
    arguments = {"url": URL, "max_chars": 1000}
    pending = await runtime.executor.ainvoke("web.fetch", 1, arguments, channel="test", turn=turn)
    assert pending.status == "pending_confirmation", pending.to_dict()
    card = pending.to_dict()["pending_confirmation"]
    assert [n["kind"] for n in card["notices"]] == ["fetch.provider"]
    assert card["provider"].startswith(DISPLAY[name])  # "Jina Reader"
    assert card["notices"][0]["message"].startswith(f"{DISPLAY[name]}")
    assert "will fetch this page for you" in card["notices"][0]["message"]
    assert replay.requests == []  # nothing left the machine before approval

    assert pending.pending_confirmation is not None
    outcome = await runtime.executor.ainvoke(
        "web.fetch",
        1,
        arguments,
        channel="test",
        turn=turn,
        confirmation_token=pending.pending_confirmation.token,
    )
    assert outcome.ok, outcome.to_dict()
    assert outcome.result is not None
    assert outcome.result["provider"] == name
    assert outcome.result["text"].startswith(f"[Page read by {DISPLAY[name]}")
    assert outcome.result["truncated"] is True and outcome.result["next_offset"] > 0
    assert SECRET not in json.dumps(outcome.to_dict())

    following = await runtime.executor.ainvoke(
        "web.fetch",
        1,
        {**arguments, "offset": outcome.result["next_offset"]},
        channel="test",
        turn=turn,
        confirmation_token=None,
    )
    assert following.status == "pending_confirmation"
    event = _audit(paths)[-2]
    assert event["provider"] == name and event["outcome"] == "ok"
    assert SECRET not in paths.audit_file.read_text()
    assert len(replay.requests) == 1


async def test_a_weighted_route_reads_through_the_provider_the_card_announced(
    paths: Paths, replay: ReplayServer
) -> None:
    for path, answer in WIRE.values():
        replay.set(path, Reply(body=answer))
    settings = Settings.model_validate(
        {
            "fetch": {
                "providers": "direct:25,firecrawl:25,tavily:25,keenable:25",
                "firecrawl": {"base_url": replay.url, "api_key": SECRET},
                "tavily": {"base_url": replay.url, "api_key": SECRET},
                "keenable": {"base_url": replay.url, "api_key": SECRET},
            }
        }
    )
    runtime = build_runtime(paths, settings=settings)
    runtime.policy.set(WEB_ACCESS, True)
    announced_readers = 0
    for n in range(12):
        turn = Turn()
        arguments = {"url": f"{URL}?n={n}"}
        pending = await runtime.executor.ainvoke(
            "web.fetch", 1, arguments, channel="test", turn=turn
        )
        assert pending.pending_confirmation is not None
        # The rendering notice is on every card that Spyglass may read directly.
        notices = [n for n in pending.pending_confirmation.notices if n.kind != "fetch.render"]
        if not notices:
            continue  # routed to direct: nothing to announce, and no network in this test
        announced_readers += 1
        outcome = await runtime.executor.ainvoke(
            "web.fetch",
            1,
            arguments,
            channel="test",
            turn=turn,
            confirmation_token=pending.pending_confirmation.token,
        )
        assert outcome.ok and outcome.result is not None
        assert notices[0].message.startswith(DISPLAY[outcome.result["provider"]])
    assert announced_readers >= 3


async def test_an_approved_call_is_checked_under_the_route_its_card_announced(
    paths: Paths, replay: ReplayServer
) -> None:
    # An http page may be fetched directly but never handed to a reader. Half the calls route
    # to direct; their approved call must be checked (and run) as direct too, not re-routed.
    settings = Settings.model_validate(
        {
            "fetch": {
                "providers": "direct:50,firecrawl:50",
                "firecrawl": {"base_url": replay.url, "api_key": SECRET},
            }
        }
    )
    runtime = build_runtime(paths, settings=settings)
    runtime.policy.set(WEB_ACCESS, True)
    with Peer({"/": page("<html><body><p>Local copy of the page.</p></body></html>")}) as peer:
        serve_public(runtime.seams, {"plain.example.com": peer})
        direct_calls = 0
        for n in range(40):
            turn = Turn()
            arguments = {"url": f"http://plain.example.com/?n={n}"}
            pending = await runtime.executor.ainvoke(
                "web.fetch", 1, arguments, channel="test", turn=turn
            )
            if pending.status == "rejected":
                assert pending.error is not None and pending.error.code == "FETCH_TARGET_REJECTED"
                continue
            direct_calls += 1
            assert pending.pending_confirmation is not None
            outcome = await runtime.executor.ainvoke(
                "web.fetch",
                1,
                arguments,
                channel="test",
                turn=turn,
                confirmation_token=pending.pending_confirmation.token,
            )
            assert outcome.ok, outcome.to_dict()
            assert outcome.result is not None and outcome.result["provider"] == "direct"
        assert direct_calls >= 8
    assert replay.requests == []


async def test_later_parts_of_a_page_come_from_the_turn_cache_under_any_route(
    paths: Paths, replay: ReplayServer
) -> None:
    path, answer = WIRE["firecrawl"]
    replay.set(path, Reply(body=answer))
    settings = Settings.model_validate(
        {
            "fetch": {
                "providers": "direct:50,firecrawl:50",
                "firecrawl": {"base_url": replay.url, "api_key": SECRET},
            }
        }
    )
    runtime = build_runtime(paths, settings=settings)
    runtime.policy.set(WEB_ACCESS, True)
    executor = runtime.executor
    turn = Turn()
    first: Any = None
    for n in range(20):
        arguments = {"url": f"{URL}?n={n}", "max_chars": 1000}
        pending = await executor.ainvoke("web.fetch", 1, arguments, channel="test", turn=turn)
        assert pending.pending_confirmation is not None
        if any(n.kind == "fetch.provider" for n in pending.pending_confirmation.notices):
            first = (arguments, pending.pending_confirmation.token)
            break
    assert first is not None
    arguments, token = first
    outcome = await executor.ainvoke(
        "web.fetch", 1, arguments, channel="test", turn=turn, confirmation_token=token
    )
    assert outcome.ok and outcome.result is not None
    following = {**arguments, "offset": outcome.result["next_offset"]}
    pending = await executor.ainvoke("web.fetch", 1, following, channel="test", turn=turn)
    assert pending.pending_confirmation is not None
    assert pending.pending_confirmation.notices == ()
    second = await executor.ainvoke(
        "web.fetch",
        1,
        following,
        channel="test",
        turn=turn,
        confirmation_token=pending.pending_confirmation.token,
    )
    assert second.ok and second.result is not None
    assert second.result["provider"] == "firecrawl"
    assert len(replay.requests) == 1


@pytest.mark.parametrize("name", sorted(WIRE))
async def test_a_hosted_reader_is_never_sent_the_urls_fragment(
    paths: Paths, replay: ReplayServer, name: str
) -> None:
    path, answer = WIRE[name]
    replay.set(path, Reply(body=answer))
    runtime = _runtime(paths, name, replay)
    turn = Turn()
    arguments = {"url": URL + "#note=my-private-note", "max_chars": 1000}
    pending = await runtime.executor.ainvoke("web.fetch", 1, arguments, channel="test", turn=turn)
    assert pending.pending_confirmation is not None, pending.to_dict()
    outcome = await runtime.executor.ainvoke(
        "web.fetch",
        1,
        arguments,
        channel="test",
        turn=turn,
        confirmation_token=pending.pending_confirmation.token,
    )
    assert outcome.ok, outcome.to_dict()
    [request] = replay.requests
    sent = request.path + json.dumps(request.query) + request.body.decode()
    assert URL in sent
    assert "my-private-note" not in sent and "#" not in sent
