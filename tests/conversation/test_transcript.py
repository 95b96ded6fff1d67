"""Replaying stored messages for the model."""

from __future__ import annotations

from spyglass.conversation.transcript import replay


def test_stored_tool_exchanges_are_replayed_with_untrusted_results_rewrapped() -> None:
    rows = [
        {"role": "user", "text": "hi"},
        {
            "role": "assistant",
            "text": "Found it.",
            "exchanges": [
                {
                    "id": "c1",
                    "name": "web_search",
                    "arguments": '{"query": "q"}',
                    "payload": '{"results": []}',
                    "untrusted": True,
                },
                {
                    "id": "c2",
                    "name": "system_health",
                    "arguments": "{}",
                    "payload": '{"status": "ok"}',
                    "untrusted": False,
                },
            ],
        },
    ]
    messages = replay(rows)
    assert [m["role"] for m in messages] == ["user", "assistant", "tool", "tool", "assistant"]
    assert messages[2]["content"].startswith("<untrusted_tool_output id=")
    assert messages[3]["content"] == '{"status": "ok"}'
    assert messages[1]["tool_calls"][0]["function"] == {
        "name": "web_search",
        "arguments": '{"query": "q"}',
    }
