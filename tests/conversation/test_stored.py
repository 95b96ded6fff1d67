"""A paused turn's stored form: everything that carries the turn on survives it, and turns
stored before the form was versioned still load."""

from __future__ import annotations

import json

import pytest

from spyglass.conversation.pending import TurnState
from spyglass.conversation.stored import TURN_STATE, state_from_json, state_to_json
from spyglass.core.confirmation import token_digest
from spyglass.core.context import Turn
from spyglass.errors import StorageError
from spyglass.llm.toolcalls import ToolCall
from spyglass.privacy.provenance import Source

#: A paused turn exactly as Spyglass stored it before stored records carried a schema version
#: (state.db's paused_turns.state, Redis' turn hash): no "schema", no "notices".
UNVERSIONED_TURN = json.dumps(
    {
        "conversation_id": "c1",
        "turn_id": "t1",
        "messages": [{"role": "user", "content": "héllo"}],
        "turn": {
            "conversation_id": "c1",
            "id": "turn-1",
            "counts": {"web.search": 1},
            "private_texts": ["héllo"],
            "sources": [
                {"url": "https://zoo.example/z", "origin": "search", "label": "result 1", "hop": 0}
            ],
        },
        "text": "partial",
        "reasoning": "",
        "events": [{"type": "tool", "name": "web.search"}],
        "citations": [{"url": "https://example.org/", "title": "Example"}],
        "exchanges": [],
        "receipt": [{"capability": "web.search", "target": "zebras", "left": True}],
        "rounds": 2,
        "queue": [
            {"id": "call_1", "name": "web_search", "arguments": {"query": "x"}, "recovered": False}
        ],
        "waiting_event": 0,
        "waiting": {"token": "tok", "capability": "web.search"},
        "claim": None,
    },
    ensure_ascii=False,
)


def state() -> TurnState:
    return TurnState(conversation_id="c1", turn_id="t", messages=[], turn=Turn("c1"))


def test_a_turn_stored_before_records_were_versioned_loads_as_version_1() -> None:
    loaded = state_from_json(UNVERSIONED_TURN)
    assert loaded.conversation_id == "c1" and loaded.turn_id == "t1"
    assert loaded.turn.id == "turn-1" and loaded.turn.counts["web.search"] == 1
    assert loaded.turn.private_texts == ("héllo",)
    assert loaded.turn.sources == [Source("https://zoo.example/z", "search", "result 1", 0)]
    assert loaded.citations.to_list() == [{"url": "https://example.org/", "title": "Example"}]
    assert loaded.queue == [ToolCall("call_1", "web_search", {"query": "x"})]
    assert (loaded.rounds, loaded.notices) == (2, [])
    # Its one card is kept by digest now; its raw token is gone from the stored form.
    assert [(c.event, c.digest) for c in loaded.waiting] == [(0, token_digest("tok"))]
    assert loaded.waiting[0].card == {"capability": "web.search"}
    assert loaded.receipt == [{"capability": "web.search", "target": "zebras", "left": True}]
    # Written again, it carries its version and reads back the same.
    again = state_to_json(loaded)
    assert json.loads(again)["schema"] == TURN_STATE.version == 3
    assert loaded.started is None  # version 2: nothing was under way
    assert '"tok"' not in again
    assert state_to_json(state_from_json(again)) == again


def test_a_turn_survives_its_json_form() -> None:
    original = state()
    original.queue = [ToolCall("id", "web_fetch", "not json", recovered=True)]
    original.notices = [{"code": "model_slow", "message": "the model took its time"}]
    again = state_from_json(state_to_json(original))
    assert again.queue == original.queue
    assert again.turn.id == original.turn.id
    assert again.notices == original.notices


def test_the_privacy_check_s_inputs_and_the_receipt_survive_the_json_form() -> None:
    """A turn resumed in another process still checks for copied words, still knows where
    its URLs came from, and still lists what left the device before the pause."""
    original = state()
    original.turn.private_texts = ("my first message", "my second message")
    original.turn.sources = [Source("https://zoo.example/z", "search", "result 1", 0)]
    original.receipt = [{"capability": "web.search", "target": "zebras", "left": True}]
    again = state_from_json(state_to_json(original))
    assert again.turn.private_texts == original.turn.private_texts
    assert again.turn.sources == original.turn.sources
    assert again.receipt == original.receipt


def test_what_only_the_holding_process_needs_is_not_stored() -> None:
    original = state()
    original.turn.cache["page"] = b"bytes read this turn"
    original.saved = True
    data = json.loads(state_to_json(original))
    assert "cache" not in data["turn"]
    assert not {"saved", "taken", "source_writes", "tokens", "claim"} & set(data)


def test_a_stored_turn_that_does_not_match_its_form_is_refused() -> None:
    data = json.loads(UNVERSIONED_TURN)
    data["turn"]["sources"][0]["origin"] = "rumour"
    with pytest.raises(StorageError, match="StoredTurnState does not match"):
        state_from_json(json.dumps(data))
