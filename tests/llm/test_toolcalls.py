"""Normalising tool calls the way real local servers send them."""

from __future__ import annotations

import pytest

from spyglass.llm.toolcalls import LeakGuard, ToolCallAccumulator, parse_arguments, salvage


def feed(*fragments: dict) -> list:
    accumulator = ToolCallAccumulator()
    for fragment in fragments:
        accumulator.add(fragment)
    return accumulator.calls()


def test_fragments_at_one_index_are_concatenated_into_one_call() -> None:
    [call] = feed(
        {"index": 0, "id": "c1", "function": {"name": "web_search", "arguments": '{"que'}},
        {"index": 0, "function": {"arguments": 'ry": "ot'}},
        {"index": 0, "function": {"arguments": 'ters"}'}},
    )
    assert (call.id, call.name, call.arguments) == ("c1", "web_search", {"query": "otters"})
    assert call.recovered is False


def test_parallel_calls_are_kept_apart_by_index() -> None:
    calls = feed(
        {"index": 0, "id": "a", "function": {"name": "web_search", "arguments": ""}},
        {"index": 1, "id": "b", "function": {"name": "web_fetch", "arguments": ""}},
        {"index": 0, "function": {"arguments": '{"query": "x"}'}},
        {"index": 1, "function": {"arguments": '{"url": "https://e.org"}'}},
    )
    assert [(c.name, c.arguments) for c in calls] == [
        ("web_search", {"query": "x"}),
        ("web_fetch", {"url": "https://e.org"}),
    ]


def test_ollama_sends_each_whole_call_at_index_zero_with_object_arguments() -> None:
    calls = feed(
        {"index": 0, "id": "o1", "function": {"name": "web_search", "arguments": {"query": "a"}}},
        {"index": 0, "id": "o2", "function": {"name": "web_search", "arguments": {"query": "b"}}},
    )
    assert [c.arguments for c in calls] == [{"query": "a"}, {"query": "b"}]
    assert [c.id for c in calls] == ["o1", "o2"]


def test_whole_calls_at_index_zero_without_ids_are_still_separate() -> None:
    calls = feed(
        {"index": 0, "function": {"name": "web_search", "arguments": '{"query": "a"}'}},
        {"index": 0, "function": {"name": "web_fetch", "arguments": '{"url": "u"}'}},
    )
    assert [c.name for c in calls] == ["web_search", "web_fetch"]


def test_missing_or_reused_ids_are_replaced_by_unique_ones() -> None:
    calls = feed(
        {"index": 0, "id": "", "function": {"name": "web_search", "arguments": "{}"}},
        {"index": 1, "id": "same", "function": {"name": "web_search", "arguments": "{}"}},
        {"index": 2, "id": "same", "function": {"name": "web_search", "arguments": "{}"}},
    )
    ids = [c.id for c in calls]
    assert all(ids) and len(set(ids)) == 3 and ids[1] == "same"


def test_arguments_that_are_not_a_json_object_are_kept_as_text_for_validation() -> None:
    [call] = feed({"index": 0, "id": "x", "function": {"name": "web_search", "arguments": "{bad"}})
    assert call.arguments == "{bad"
    [empty] = feed({"index": 0, "id": "y", "function": {"name": "system_health", "arguments": ""}})
    assert empty.arguments == {}


def test_a_leaked_json_tool_call_is_recovered_and_removed_from_the_text() -> None:
    result = salvage(
        'Let me check.<tool_call>{"name": "web_search", "arguments": '
        '{"query": "otters"}}</tool_call>'
    )
    assert result.text == "Let me check."
    [call] = result.calls
    assert (call.name, call.arguments, call.recovered) == ("web_search", {"query": "otters"}, True)


def test_a_leaked_function_block_is_recovered_with_its_parameters() -> None:
    result = salvage(
        "<tool_call><function=web_fetch><parameter=url>https://e.org/a</parameter>"
        "<parameter=max_chars>1000</parameter></function></tool_call>"
    )
    [call] = result.calls
    assert call.arguments == {"url": "https://e.org/a", "max_chars": 1000}


def test_a_malformed_leaked_block_is_dropped_never_shown() -> None:
    result = salvage('Answer.<tool_call>{"name": web_search</tool_call> tail <tool_call>{"na')
    assert result.calls == []
    assert result.malformed == 2
    assert "tool_call" not in result.text and "web_search" not in result.text


DEEP = "[" * 100_000 + "]" * 100_000


def test_arguments_nested_deeper_than_python_reads_are_kept_as_text_for_validation() -> None:
    # A model a page has steered can write such arguments; they fail validation, not the turn.
    assert parse_arguments('{"query": ' + DEEP + "}") == '{"query": ' + DEEP + "}"


def test_a_leaked_block_nested_too_deeply_is_dropped_and_its_parameters_kept_as_text() -> None:
    assert salvage(f"Answer.<tool_call>{DEEP}</tool_call>").malformed == 1
    result = salvage(
        f"<tool_call><function=web_search><parameter=query>{DEEP}</parameter></function>"
        "</tool_call>"
    )
    [call] = result.calls
    assert call.arguments == {"query": DEEP}


def test_the_leak_guard_releases_plain_text_and_holds_back_a_block() -> None:
    guard = LeakGuard()
    shown = guard.feed("Hello <")
    shown += guard.feed("b>world</b> ")
    shown += guard.feed("<tool_c")
    shown += guard.feed('all>{"name": "web_search", "arguments": {"query": "q"}}</tool_call>')
    tail, salvaged = guard.finish()
    assert (shown + tail).strip() == "Hello <b>world</b>"
    assert [c.name for c in salvaged.calls] == ["web_search"]


@pytest.mark.parametrize("cut", range(1, len("<function=")))
def test_a_marker_cut_at_any_point_between_pieces_is_never_shown(cut: int) -> None:
    guard = LeakGuard()
    block = '<function=web_search>{"query": "q"}</function>'
    shown = guard.feed("See <i>this</i> " + block[:cut])
    assert not shown.endswith(block[:cut])
    shown += guard.feed(block[cut:])
    assert "function" not in shown
    assert shown == "See <i>this</i> "
