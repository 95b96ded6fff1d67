"""``web.fetch`` through the executor: policy, approval, result shape, parts and the cache."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from spyglass.capabilities.fetch import CAPABILITY
from spyglass.core.context import Turn
from spyglass.core.outcome import Outcome
from spyglass.core.policy import WEB_ACCESS
from spyglass.runtime import Runtime
from tests.support.fetch_peers import Peer, page, serve_public

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
        serve_public(runtime.services, {"example.com": peer})
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


async def test_a_private_url_is_rejected_with_its_reason(runtime: Runtime, site: Peer) -> None:
    runtime.policy.set(WEB_ACCESS, True)
    outcome = await approved(runtime, {"url": "http://169.254.169.254/latest/"}, Turn())
    assert outcome.status == "rejected"
    assert outcome.error is not None
    assert outcome.error.code == "FETCH_TARGET_REJECTED"
    assert outcome.error.reason == "private_address"


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
