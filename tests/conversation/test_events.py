"""ToolEvents as the HTTP contract shapes them."""

from __future__ import annotations

from spyglass.conversation.events import tool_event
from spyglass.core.outcome import ErrorInfo, Outcome


def test_a_search_event_summarises_its_results_and_names_the_provider() -> None:
    outcome = Outcome(
        "ok",
        "web.search",
        1,
        "i",
        "execute",
        provider="searxng",
        result={
            "query": "q",
            "result_count": 1,
            "results": [{"title": "T", "url": "https://a.org", "snippet": "S"}],
        },
    )
    assert tool_event(outcome, {"query": "q"}) == {
        "type": "tool",
        "capability": "web.search",
        "arguments": {"query": "q"},
        "status": "ok",
        "provider": "searxng",
        "summary": {
            "result_count": 1,
            "results": [{"title": "T", "url": "https://a.org", "snippet": "S"}],
        },
    }


def test_a_fetch_event_summary_never_carries_the_page_text() -> None:
    outcome = Outcome(
        "ok",
        "web.fetch",
        1,
        "i",
        "execute",
        result={
            "url": "https://a.org",
            "final_url": "https://a.org/",
            "title": None,
            "text": "PAGE TEXT",
            "redirected": False,
        },
    )
    event = tool_event(outcome, {"url": "https://a.org"})
    assert event["summary"] == {
        "title": None,
        "url": "https://a.org",
        "final_url": "https://a.org/",
        "redirected": False,
    }
    assert "PAGE TEXT" not in str(event)


def test_a_failure_carries_its_code_and_safe_message() -> None:
    outcome = Outcome(
        "rejected",
        "web.fetch",
        1,
        "i",
        "policy",
        error=ErrorInfo("POLICY_DISABLED", "web access is off"),
    )
    event = tool_event(outcome, "not an object")
    assert (event["code"], event["message"], event["arguments"]) == (
        "POLICY_DISABLED",
        "web access is off",
        {},
    )
