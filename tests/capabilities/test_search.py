"""``web.search`` through the real executor: policy, confirmation, result, failures, audit."""

from __future__ import annotations

import json
from typing import Any

import pytest

from spyglass.capabilities.search import CAPABILITY, query_from
from spyglass.core.policy import WEB_ACCESS, capability_allowed
from spyglass.paths import Paths
from spyglass.runtime import Runtime, build_runtime
from spyglass.settings import Settings
from tests.search.replay import ReplayServer, Reply
from tests.support.unresolving import Unresolving

QUERY = "very distinctive query words"


def _searxng(n: int) -> dict[str, Any]:
    return {
        "query": QUERY,
        "results": [
            {"url": f"https://r{i}.example/", "title": f"<b>R{i}</b>", "content": f"s{i}"}
            for i in range(n)
        ],
        "unresponsive_engines": [],
    }


def _runtime(paths: Paths, replay: ReplayServer, **extra: Any) -> Runtime:
    overrides = {"search.providers": "searxng", "search.searxng.base_url": replay.url, **extra}
    return build_runtime(paths, overrides=overrides)


async def _approved(runtime: Runtime, arguments: dict[str, Any]) -> Any:
    executor = runtime.executor
    pending = await executor.ainvoke("web.search", 1, arguments, channel="cli")
    assert pending.status == "pending_confirmation" and pending.pending_confirmation
    return await executor.ainvoke(
        "web.search",
        1,
        arguments,
        channel="cli",
        confirmation_token=pending.pending_confirmation.token,
    )


def _audit(runtime: Runtime) -> list[dict[str, Any]]:
    return [json.loads(line) for line in runtime.paths.audit_file.read_text().splitlines()]


async def test_with_web_access_off_nothing_is_sent(paths: Paths, replay: ReplayServer) -> None:
    runtime = _runtime(paths, replay)
    outcome = await runtime.executor.ainvoke("web.search", 1, {"query": QUERY}, channel="cli")
    assert outcome.status == "rejected" and outcome.error
    assert outcome.error.code == "POLICY_DISABLED"
    assert replay.requests == []


async def test_a_search_needs_approval_of_the_exact_arguments(
    paths: Paths, replay: ReplayServer
) -> None:
    runtime = _runtime(paths, replay)
    runtime.policy.set(WEB_ACCESS, True)
    arguments = {"query": QUERY, "count": 3, "include_domains": ["example.org"]}
    outcome = await runtime.executor.ainvoke("web.search", 1, arguments, channel="cli")
    assert outcome.status == "pending_confirmation" and outcome.pending_confirmation
    assert outcome.pending_confirmation.arguments == arguments
    assert replay.requests == []


async def test_the_card_names_the_provider_that_will_receive_the_query(
    paths: Paths, replay: ReplayServer
) -> None:
    runtime = _runtime(paths, replay)
    runtime.policy.set(WEB_ACCESS, True)
    outcome = await runtime.executor.ainvoke("web.search", 1, {"query": QUERY}, channel="cli")
    assert outcome.pending_confirmation is not None
    assert outcome.pending_confirmation.provider == "SearXNG"
    # The recipient is its own field, not one more notice on the card.
    assert all(n.kind != "recipient" for n in outcome.pending_confirmation.notices)
    ddg = build_runtime(paths, overrides={"search.providers": "duckduckgo"})
    ddg.policy.set(WEB_ACCESS, True)
    asked = await ddg.executor.ainvoke("web.search", 1, {"query": QUERY}, channel="cli")
    assert asked.to_dict()["pending_confirmation"]["provider"] == "DuckDuckGo"


async def test_an_approved_search_returns_clean_results_and_audits_the_provider(
    paths: Paths, replay: ReplayServer
) -> None:
    replay.set("/search", Reply(body=_searxng(12)))
    runtime = _runtime(paths, replay)
    runtime.policy.set(WEB_ACCESS, True)
    outcome = await _approved(runtime, {"query": QUERY, "count": 10})
    assert outcome.status == "ok" and outcome.result
    assert outcome.result["provider"] == "searxng" and outcome.result["result_count"] == 10
    assert outcome.result["results"][0] == {
        "title": "R0",
        "url": "https://r0.example/",
        "snippet": "s0",
    }
    assert outcome.provider == "searxng"
    event = _audit(runtime)[-1]
    assert event["outcome"] == "ok" and event["provider"] == "searxng"
    assert QUERY not in runtime.paths.audit_file.read_text()
    assert replay.last.query["q"] == [QUERY]


async def test_a_provider_failure_is_a_failed_outcome_with_its_code(
    paths: Paths, replay: ReplayServer
) -> None:
    replay.set("/search", Reply(body={"results": [], "unresponsive_engines": [["g", "CAPTCHA"]]}))
    runtime = _runtime(paths, replay)
    runtime.policy.set(WEB_ACCESS, True)
    outcome = await _approved(runtime, {"query": QUERY})
    assert outcome.status == "failed" and outcome.error
    assert outcome.error.code == "SEARCH_RATE_LIMITED" and outcome.error.retryable
    event = _audit(runtime)[-1]
    assert event["code"] == "SEARCH_RATE_LIMITED" and event["provider"] == "searxng"
    assert "CAPTCHA" not in runtime.paths.audit_file.read_text()


async def test_a_provider_whose_name_cannot_be_looked_up_leaves_a_receipt_that_nothing_left(
    paths: Paths, replay: ReplayServer
) -> None:
    from spyglass.privacy.receipts import build, entry
    from spyglass.providers.clients import PROVIDER_CLIENTS

    runtime = _runtime(paths, replay)
    runtime.policy.set(WEB_ACCESS, True)
    runtime.executor.seams.provide(PROVIDER_CLIENTS, Unresolving())
    outcome = await _approved(runtime, {"query": QUERY})
    assert outcome.status == "failed" and outcome.error
    assert outcome.error.code == "SEARCH_PROVIDER_UNAVAILABLE"
    assert outcome.error.reason == "unresolved_name"
    receipt = build([entry(outcome, {"query": QUERY})])
    assert receipt["left_device"] is False
    assert receipt["summary"].startswith("Stayed on this device; not sent: search")
    assert receipt["summary"].endswith("(failed: SearXNG's name could not be looked up)")
    assert replay.requests == []


async def test_an_unconfigured_provider_is_refused_before_anyone_is_asked(paths: Paths) -> None:
    runtime = build_runtime(paths, overrides={"search.providers": "brave"})
    runtime.policy.set(WEB_ACCESS, True)
    outcome = await runtime.executor.ainvoke("web.search", 1, {"query": QUERY}, channel="cli")
    assert outcome.status == "rejected" and outcome.error
    assert outcome.stage == "check" and outcome.pending_confirmation is None
    assert outcome.error.code == "SEARCH_NOT_CONFIGURED"
    assert "SPYGLASS_SEARCH__BRAVE__API_KEY" in outcome.error.message


@pytest.mark.parametrize(
    ("overrides", "words"),
    [
        ({"search.providers": "searxng"}, "search.searxng.base_url"),
        ({"search.providers": "tavily"}, "search.tavily.api_key"),
        ({"search.fallback": ["kagi"]}, "search.kagi.api_key"),
    ],
)
async def test_a_misconfigured_search_is_not_offered_and_is_refused_before_approval(
    paths: Paths, overrides: dict[str, Any], words: str
) -> None:
    runtime = build_runtime(paths, overrides=overrides)
    runtime.policy.set(WEB_ACCESS, True)
    problems = CAPABILITY.problems(runtime.settings)
    assert any(words in problem for problem in problems), problems
    assert not capability_allowed(runtime.policy, CAPABILITY, runtime.settings)
    outcome = await runtime.executor.ainvoke("web.search", 1, {"query": QUERY}, channel="cli")
    assert outcome.status == "rejected" and outcome.stage == "check"


def test_a_working_configuration_is_offered() -> None:
    assert CAPABILITY.problems(Settings()) == []


async def test_a_slow_provider_gets_the_search_deadline_message_not_a_bare_timeout(
    paths: Paths, replay: ReplayServer
) -> None:
    replay.set("/search", Reply(stall=True))
    runtime = _runtime(paths, replay, **{"search.timeout_seconds": 0.5})
    runtime.policy.set(WEB_ACCESS, True)
    outcome = await _approved(runtime, {"query": QUERY})
    assert outcome.error and outcome.error.code == "SEARCH_PROVIDER_UNAVAILABLE"
    assert "0.5 seconds" in outcome.error.message


@pytest.mark.parametrize(
    ("arguments", "words"),
    [
        ({"query": "   "}, "query has an invalid format"),
        ({"query": "x" * 501}, "query must be at most 500 characters"),
        ({"query": "q", "count": 21}, "count must be at most 20"),
        ({"query": "q", "time_range": "decade"}, "time_range must be one of day, week"),
        (
            {"query": "q", "include_domains": ["a.com"], "exclude_domains": ["b.com"]},
            "include_domains or exclude_domains, not both",
        ),
        ({"query": "q", "include_domains": ["a.com", "a.com"]}, "must not repeat"),
        ({"query": "q", "include_domains": [f"d{i}.com" for i in range(11)]}, "at most 10"),
        ({"query": "q", "engines": "google"}, "1 unexpected field; allowed fields"),
    ],
)
async def test_bad_arguments_are_refused_before_approval(
    paths: Paths, replay: ReplayServer, arguments: dict[str, Any], words: str
) -> None:
    runtime = _runtime(paths, replay)
    runtime.policy.set(WEB_ACCESS, True)
    outcome = await runtime.executor.ainvoke("web.search", 1, arguments, channel="cli")
    assert outcome.status == "rejected" and outcome.stage == "validate" and outcome.error
    assert words in outcome.error.message


@pytest.mark.parametrize(
    ("arguments", "words"),
    [
        ({"query": "q", "include_domains": ["192.168.1.1"]}, "IP addresses are not domains"),
        ({"query": "q", "exclude_domains": ["nas.local"]}, "private or special-use network"),
        ({"query": "q", "include_domains": ["wiki.home.arpa"]}, "private or special-use"),
        ({"query": "q", "include_domains": ["hidden.onion"]}, "private or special-use"),
        ({"query": "q", "include_domains": ["shop.test"]}, "private or special-use"),
        ({"query": "q", "include_domains": ["router.home"]}, "private or special-use"),
        ({"query": "q", "exclude_domains": ["a.com", "https://b.com/"]}, "exclude_domains entry 2"),
    ],
)
async def test_unusable_domain_filters_are_refused_at_check_before_approval(
    paths: Paths, replay: ReplayServer, arguments: dict[str, Any], words: str
) -> None:
    runtime = _runtime(paths, replay)
    runtime.policy.set(WEB_ACCESS, True)
    outcome = await runtime.executor.ainvoke("web.search", 1, arguments, channel="cli")
    assert outcome.status == "rejected" and outcome.stage == "check" and outcome.error
    assert outcome.pending_confirmation is None
    assert outcome.error.code == "INVALID_ARGUMENTS"
    assert words in outcome.error.message
    # No confirmation was ever issued: the audit log has no pending attempt.
    assert "pending_confirmation" not in runtime.paths.audit_file.read_text()


async def test_upper_case_and_trailing_dot_filters_are_normalised_and_applied(
    paths: Paths, replay: ReplayServer
) -> None:
    runtime = _runtime(paths, replay)
    runtime.policy.set(WEB_ACCESS, True)
    arguments = {"query": QUERY, "include_domains": ["Example.COM."]}
    pending = await runtime.executor.ainvoke("web.search", 1, arguments, channel="cli")
    assert pending.status == "pending_confirmation", pending.to_dict()
    assert query_from(arguments).include_domains == ("example.com",)


def test_web_search_is_registered_as_read_only_external_and_needs_approval(
    runtime: Runtime,
) -> None:
    capability = runtime.registry.get("web.search", 1)
    assert capability is not None
    described = capability.describe()
    assert described["side_effect"] == "read_only" and described["network"] == "external"
    assert described["confirmation"] == "required"
    assert described["policy_key"] == "web_access_enabled"
    assert described["bounds"]["timeout_seconds"] == 10
    assert capability.openai_tool()["function"]["name"] == "web_search"


async def test_the_key_never_reaches_the_outcome_or_the_audit_log(
    paths: Paths, replay: ReplayServer
) -> None:
    secret = "tvly-SECRET-key-never-shown-42"
    replay.set("/search", Reply(401, {"detail": {"error": f"Unauthorized: key {secret}"}}))
    runtime = build_runtime(
        paths,
        overrides={
            "search.providers": "tavily",
            "search.tavily.base_url": replay.url,
            "search.tavily.api_key": secret,
        },
    )
    runtime.policy.set(WEB_ACCESS, True)
    outcome = await _approved(runtime, {"query": QUERY})
    assert outcome.error and outcome.error.code == "SEARCH_AUTH_FAILED"
    assert replay.last.headers["authorization"] == f"Bearer {secret}"
    assert secret not in outcome.to_json()
    assert secret not in runtime.paths.audit_file.read_text()
    assert _audit(runtime)[-1]["provider"] == "tavily"


async def test_the_owners_result_cap_limits_what_the_model_asks_for(
    paths: Paths, replay: ReplayServer
) -> None:
    replay.set("/search", Reply(body=_searxng(20)))
    runtime = _runtime(paths, replay, **{"search.max_results": 3, "search.snippet_chars": 60})
    runtime.policy.set(WEB_ACCESS, True)
    long = {"url": "https://long.example/", "title": "L", "content": "word " * 100}
    replay.set("/search", Reply(body={**_searxng(0), "results": [long, *_searxng(19)["results"]]}))
    outcome = await _approved(runtime, {"query": QUERY, "count": 15})
    assert outcome.ok and outcome.result
    assert outcome.result["result_count"] == 3
    assert len(outcome.result["results"][0]["snippet"]) <= 60
    assert any("search.max_results" in note for note in outcome.result["notes"])


def test_the_tool_description_lists_the_operators_of_the_configured_provider() -> None:
    brave = CAPABILITY.openai_tool(Settings.model_validate({"search": {"providers": "brave"}}))
    assert "site:" in brave["function"]["description"]
    assert "intitle:" in brave["function"]["description"]
    tavily = CAPABILITY.description_for(
        Settings.model_validate({"search": {"providers": "tavily"}})
    )
    assert "site:" in tavily and "ignores operators" in tavily
    mixed = Settings.model_validate({"search": {"providers": "brave", "fallback": ["searxng"]}})
    shared = CAPABILITY.description_for(mixed)
    assert "site:" in shared and "intitle:" not in shared
