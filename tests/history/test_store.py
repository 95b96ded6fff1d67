"""The SQLite history: round trips, full-text search, retention, off switch."""

from __future__ import annotations

import sqlite3
import stat
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from spyglass.history.migrations import MIGRATIONS
from spyglass.history.store import NullHistory, SQLiteHistory, fts_query, open_history


class Now:
    def __init__(self) -> None:
        self.value = datetime(2026, 1, 1, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.value


@pytest.fixture
def now() -> Now:
    return Now()


@pytest.fixture
def store(tmp_path: Path, now: Now) -> SQLiteHistory:
    history = SQLiteHistory(tmp_path / "spyglass.db", retention_days=30, clock=now)
    yield history
    history.close()


def save_turn(
    store: SQLiteHistory, cid: str, turn: str, user: str, answer: str, web_text: str = ""
) -> None:
    store.add_user(cid, turn, user, title=user)
    store.save_assistant(
        cid,
        turn,
        text=answer,
        reasoning="thought",
        events=[
            {
                "type": "tool",
                "capability": "web.search",
                "status": "ok",
                "summary": {"results": [{"snippet": web_text}]},
            }
        ],
        citations=[{"url": "https://a.org", "title": "A"}],
        exchanges=[
            {
                "id": "c",
                "name": "web_search",
                "arguments": "{}",
                "payload": web_text,
                "untrusted": True,
            }
        ],
    )


def test_a_conversation_round_trips_with_events_and_citations(store: SQLiteHistory) -> None:
    save_turn(store, "c1", "t1", "What about otters?", "Otters swim.")
    conversation = store.conversation("c1")
    assert conversation is not None
    assert conversation["title"] == "What about otters?"
    user, assistant = conversation["messages"]
    assert (user["role"], user["text"]) == ("user", "What about otters?")
    assert assistant["text"] == "Otters swim." and assistant["reasoning"] == "thought"
    assert assistant["citations"] == [{"url": "https://a.org", "title": "A"}]
    assert assistant["events"][0]["capability"] == "web.search"
    assert "exchanges" not in assistant
    assert user["created_at"].endswith("Z")


def test_saving_a_turn_again_updates_its_answer_instead_of_adding_one(
    store: SQLiteHistory,
) -> None:
    save_turn(store, "c1", "t1", "q", "first")
    store.save_assistant(
        "c1", "t1", text="second", reasoning="", events=[], citations=[], exchanges=[]
    )
    texts = [m["text"] for m in store.messages("c1")]
    assert texts == ["q", "second"]
    assert store.conversations("first") == []
    assert [c["id"] for c in store.conversations("second")] == ["c1"]


def test_search_finds_user_and_model_words_but_never_web_text(store: SQLiteHistory) -> None:
    save_turn(
        store,
        "c1",
        "t1",
        "Tell me about otters",
        "They are mustelids",
        web_text="zanzibar appears only on the web page",
    )
    assert [c["id"] for c in store.conversations("otters")] == ["c1"]
    assert [c["id"] for c in store.conversations("mustelid")] == ["c1"]  # prefix match
    assert store.conversations("zanzibar") == []


def test_search_text_with_fts_syntax_is_taken_literally(store: SQLiteHistory) -> None:
    save_turn(store, "c1", "t1", "AND OR NOT quotes", "ok")
    assert [c["id"] for c in store.conversations('"AND" OR( * -')] == ["c1"]
    assert store.conversations("(((") == []
    assert fts_query("a*b") == '"a"* "b"*'


def test_conversations_are_listed_newest_first(store: SQLiteHistory, now: Now) -> None:
    save_turn(store, "old", "t1", "old one", "a")
    now.value += timedelta(minutes=1)
    save_turn(store, "new", "t2", "new one", "b")
    assert [c["id"] for c in store.conversations()] == ["new", "old"]


def test_deleting_removes_the_conversation_and_its_search_entries(store: SQLiteHistory) -> None:
    save_turn(store, "c1", "t1", "otters", "fine")
    assert store.delete("c1") is True
    assert store.conversation("c1") is None
    assert store.conversations("otters") == []
    assert store.delete("c1") is False


def test_an_answer_for_a_deleted_conversation_is_not_resurrected(store: SQLiteHistory) -> None:
    store.add_user("c1", "t1", "q", title="q")
    store.delete("c1")
    store.save_assistant(
        "c1", "t1", text="late", reasoning="", events=[], citations=[], exchanges=[]
    )
    assert store.conversations() == []


def test_retention_deletes_conversations_older_than_the_period(
    store: SQLiteHistory, now: Now
) -> None:
    save_turn(store, "old", "t1", "old", "a")
    now.value += timedelta(days=31)
    save_turn(store, "fresh", "t2", "fresh", "b")
    assert store.prune() == 1
    assert [c["id"] for c in store.conversations()] == ["fresh"]


def test_the_database_is_private_and_migrated_to_the_current_version(
    store: SQLiteHistory, tmp_path: Path
) -> None:
    mode = stat.S_IMODE((tmp_path / "spyglass.db").stat().st_mode)
    assert mode == 0o600
    with sqlite3.connect(tmp_path / "spyglass.db") as raw:
        assert raw.execute("PRAGMA user_version").fetchone()[0] == store.version == len(MIGRATIONS)


def test_reopening_keeps_the_data_and_does_not_migrate_twice(tmp_path: Path, now: Now) -> None:
    first = SQLiteHistory(tmp_path / "h.db", retention_days=30, clock=now)
    save_turn(first, "c1", "t1", "kept", "yes")
    first.close()
    second = SQLiteHistory(tmp_path / "h.db", retention_days=30, clock=now)
    assert [m["text"] for m in second.messages("c1")] == ["kept", "yes"]
    second.close()


def test_a_database_from_a_newer_spyglass_is_refused_with_a_clear_message(tmp_path: Path) -> None:
    with sqlite3.connect(tmp_path / "h.db") as raw:
        raw.execute("PRAGMA user_version = 99")
    with pytest.raises(RuntimeError, match="newer than this Spyglass"):
        SQLiteHistory(tmp_path / "h.db", retention_days=30)


def test_history_off_stores_nothing(tmp_path: Path) -> None:
    store = open_history(tmp_path / "h.db", enabled=False, retention_days=30)
    assert isinstance(store, NullHistory)
    store.add_user("c", "t", "hello", title="hello")
    assert store.conversations() == [] and not (tmp_path / "h.db").exists()


def test_opening_the_history_prunes_expired_conversations(tmp_path: Path, now: Now) -> None:
    old = SQLiteHistory(tmp_path / "h.db", retention_days=30, clock=now)
    save_turn(old, "c1", "t1", "ancient", "a")
    old.close()
    store = open_history(tmp_path / "h.db", enabled=True, retention_days=30)
    assert store.conversations() == []  # 2026-01-01 is long past the real clock's window
    store.close()


def test_a_receipt_is_stored_with_its_answer_and_listed_since_a_time(tmp_path: Path) -> None:
    moments = iter([datetime(2026, 1, 1, tzinfo=UTC) + timedelta(hours=h) for h in (0, 1, 10, 11)])
    store = SQLiteHistory(tmp_path / "r.db", retention_days=30, clock=lambda: next(moments))
    receipt = {"left_device": False, "summary": "Stayed on this device", "items": []}
    store.add_user("c1", "t1", "hello", title="hello")
    store.save_assistant(
        "c1", "t1", text="hi", reasoning="", events=[], citations=[], exchanges=[], receipt=receipt
    )
    store.add_user("c1", "t2", "again", title="again")
    store.save_assistant("c1", "t2", text="hi", reasoning="", events=[], citations=[], exchanges=[])
    assert store.messages("c1")[1]["receipt"] == receipt
    assert store.conversation("c1")["messages"][1]["receipt"] == receipt  # type: ignore[index]
    (found,) = store.receipts(datetime(2026, 1, 1, tzinfo=UTC))
    assert found["receipt"] == receipt and found["title"] == "hello"
    assert store.receipts(datetime(2026, 1, 1, 2, tzinfo=UTC)) == []
    store.close()


def test_a_version_1_database_gains_receipts_without_losing_messages(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    with sqlite3.connect(path) as raw:
        raw.executescript(MIGRATIONS[0] + "PRAGMA user_version = 1;")
        raw.execute("INSERT INTO conversations VALUES ('c', 't', 'x', 'x')")
        raw.execute(
            "INSERT INTO messages(conversation_id, turn_id, role, text, created_at) "
            "VALUES ('c', 't1', 'user', 'old words', 'x')"
        )
    raw.close()
    store = SQLiteHistory(path, retention_days=30)
    (message,) = store.messages("c")
    assert message["text"] == "old words" and message["receipt"] is None
    store.close()
