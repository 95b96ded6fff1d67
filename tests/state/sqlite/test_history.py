"""History stores (SQLite and PostgreSQL): round trips, full-text search, retention, off."""

from __future__ import annotations

import sqlite3
import stat
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from spyglass.errors import StorageError
from spyglass.history.store import HistoryStore, NullHistory
from spyglass.state.postgres import PostgresHistory, upgrade
from spyglass.state.sqlite.history import SQLiteHistory, ThreadedHistory, fts_query, open_history
from spyglass.state.sqlite.migrations import HISTORY_MIGRATIONS as MIGRATIONS


class Now:
    def __init__(self) -> None:
        self.value = datetime(2026, 1, 1, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.value


@pytest.fixture
def now() -> Now:
    return Now()


@pytest.fixture
def sqlite_store(tmp_path: Path, now: Now) -> Iterator[SQLiteHistory]:
    history = SQLiteHistory(tmp_path / "spyglass.db", retention_days=30, clock=now)
    yield history
    history.close()


@pytest.fixture(params=["sqlite", "postgresql"])
async def store(
    request: pytest.FixtureRequest, tmp_path: Path, now: Now
) -> AsyncIterator[HistoryStore]:
    """The history contract holds for the embedded and the shared store alike."""
    history: HistoryStore
    if request.param == "sqlite":
        history = ThreadedHistory(
            SQLiteHistory(tmp_path / "spyglass.db", retention_days=30, clock=now)
        )
    else:
        url = request.getfixturevalue("database_url")
        upgrade(url, 5)
        history = PostgresHistory(url, retention_days=30, timeout=5, clock=now)
    yield history
    await history.close()


async def save_turn(
    store: HistoryStore, cid: str, turn: str, user: str, answer: str, web_text: str = ""
) -> None:
    await store.add_user(cid, turn, user, title=user)
    await store.save_assistant(
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


def save_turn_sync(
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


async def test_a_conversation_round_trips_with_events_and_citations(store: HistoryStore) -> None:
    await save_turn(store, "c1", "t1", "What about otters?", "Otters swim.")
    conversation = await store.conversation("c1")
    assert conversation is not None
    assert conversation["title"] == "What about otters?"
    user, assistant = conversation["messages"]
    assert (user["role"], user["text"]) == ("user", "What about otters?")
    assert assistant["text"] == "Otters swim." and assistant["reasoning"] == "thought"
    assert assistant["citations"] == [{"url": "https://a.org", "title": "A"}]
    assert assistant["events"][0]["capability"] == "web.search"
    assert "exchanges" not in assistant
    assert user["created_at"].endswith("Z")


async def test_saving_a_turn_again_updates_its_answer_instead_of_adding_one(
    store: HistoryStore,
) -> None:
    await save_turn(store, "c1", "t1", "q", "first")
    await store.save_assistant(
        "c1", "t1", text="second", reasoning="", events=[], citations=[], exchanges=[]
    )
    texts = [m["text"] for m in await store.messages("c1")]
    assert texts == ["q", "second"]
    assert await store.conversations("first") == []
    assert [c["id"] for c in await store.conversations("second")] == ["c1"]


async def test_search_finds_user_and_model_words_but_never_web_text(store: HistoryStore) -> None:
    await save_turn(
        store,
        "c1",
        "t1",
        "Tell me about otters",
        "They are mustelids",
        web_text="zanzibar appears only on the web page",
    )
    assert [c["id"] for c in await store.conversations("otters")] == ["c1"]
    assert [c["id"] for c in await store.conversations("mustelid")] == ["c1"]  # prefix match
    assert await store.conversations("zanzibar") == []


@pytest.mark.parametrize(
    ("stored", "typed"),
    [
        ("We met at the café on Rue Sainte-Catherine", "cafe"),
        ("a cafe near the station", "café"),
        ("Her résumé lists Zürich and Kraków", "resume zurich krakow"),
        ("Phở at Hà Nội's night market", "pho ha noi"),
        ("NAÏVE Bayes, explained", "naive"),
    ],
)
async def test_search_folds_accents_both_ways_and_still_never_finds_web_text(
    store: HistoryStore, stored: str, typed: str
) -> None:
    await save_turn(store, "c1", "t1", stored, "Noted.", web_text="Crème brûlée recipes")
    found = await store.conversations(typed)
    assert [c["id"] for c in found] == ["c1"]
    assert await store.conversations("creme brulee") == []


async def test_search_text_with_fts_syntax_is_taken_literally(store: HistoryStore) -> None:
    await save_turn(store, "c1", "t1", "AND OR NOT quotes", "ok")
    assert [c["id"] for c in await store.conversations('"AND" OR( * -')] == ["c1"]
    assert await store.conversations("(((") == []
    assert fts_query("a*b") == '"a"* "b"*'


async def test_conversations_are_listed_newest_first(store: HistoryStore, now: Now) -> None:
    await save_turn(store, "old", "t1", "old one", "a")
    now.value += timedelta(minutes=1)
    await save_turn(store, "new", "t2", "new one", "b")
    assert [c["id"] for c in await store.conversations()] == ["new", "old"]


async def test_deleting_removes_the_conversation_and_its_search_entries(
    store: HistoryStore,
) -> None:
    await save_turn(store, "c1", "t1", "otters", "fine")
    assert await store.delete("c1") is True
    assert await store.conversation("c1") is None
    assert await store.conversations("otters") == []
    assert await store.delete("c1") is False


async def test_an_answer_for_a_deleted_conversation_is_not_resurrected(store: HistoryStore) -> None:
    await store.add_user("c1", "t1", "q", title="q")
    await store.delete("c1")
    await store.save_assistant(
        "c1", "t1", text="late", reasoning="", events=[], citations=[], exchanges=[]
    )
    assert await store.conversations() == []


async def test_retention_deletes_conversations_older_than_the_period(
    store: HistoryStore, now: Now
) -> None:
    await save_turn(store, "old", "t1", "old", "a")
    now.value += timedelta(days=31)
    await save_turn(store, "fresh", "t2", "fresh", "b")
    assert await store.prune() == 1
    assert [c["id"] for c in await store.conversations()] == ["fresh"]


def test_the_database_is_private_and_migrated_to_the_current_version(
    sqlite_store: SQLiteHistory, tmp_path: Path
) -> None:
    mode = stat.S_IMODE((tmp_path / "spyglass.db").stat().st_mode)
    assert mode == 0o600
    with sqlite3.connect(tmp_path / "spyglass.db") as raw:
        assert (
            raw.execute("PRAGMA user_version").fetchone()[0]
            == sqlite_store.version
            == len(MIGRATIONS)
        )


def test_reopening_keeps_the_data_and_does_not_migrate_twice(tmp_path: Path, now: Now) -> None:
    first = SQLiteHistory(tmp_path / "h.db", retention_days=30, clock=now)
    save_turn_sync(first, "c1", "t1", "kept", "yes")
    first.close()
    second = SQLiteHistory(tmp_path / "h.db", retention_days=30, clock=now)
    assert [m["text"] for m in second.messages("c1")] == ["kept", "yes"]
    second.close()


def test_a_database_from_a_newer_spyglass_is_refused_with_a_clear_message(tmp_path: Path) -> None:
    with sqlite3.connect(tmp_path / "h.db") as raw:
        raw.execute("PRAGMA user_version = 99")
    with pytest.raises(StorageError, match="newer than this Spyglass"):
        SQLiteHistory(tmp_path / "h.db", retention_days=30)


async def test_history_off_stores_nothing(tmp_path: Path) -> None:
    store = open_history(tmp_path / "h.db", enabled=False, retention_days=30)
    assert isinstance(store, NullHistory)
    await store.add_user("c", "t", "hello", title="hello")
    assert await store.conversations() == [] and not (tmp_path / "h.db").exists()


async def test_opening_the_history_prunes_expired_conversations(tmp_path: Path, now: Now) -> None:
    old = SQLiteHistory(tmp_path / "h.db", retention_days=30, clock=now)
    save_turn_sync(old, "c1", "t1", "ancient", "a")
    old.close()
    store = open_history(tmp_path / "h.db", enabled=True, retention_days=30)
    assert await store.conversations() == []  # 2026-01-01 is long past the real clock's window
    await store.close()


async def test_a_receipt_is_stored_with_its_answer_and_listed_since_a_time(
    store: HistoryStore, now: Now
) -> None:
    receipt = {"left_device": False, "summary": "Stayed on this device", "items": []}
    await store.add_user("c1", "t1", "hello", title="hello")
    now.value += timedelta(hours=1)
    await store.save_assistant(
        "c1", "t1", text="hi", reasoning="", events=[], citations=[], exchanges=[], receipt=receipt
    )
    now.value += timedelta(hours=9)
    await store.add_user("c1", "t2", "again", title="again")
    now.value += timedelta(hours=1)
    await store.save_assistant(
        "c1", "t2", text="hi", reasoning="", events=[], citations=[], exchanges=[]
    )
    messages = await store.messages("c1")
    assert messages[1]["receipt"] == receipt and messages[3]["receipt"] is None
    conversation = await store.conversation("c1")
    assert conversation is not None and conversation["messages"][1]["receipt"] == receipt
    (found,) = await store.receipts(datetime(2026, 1, 1, tzinfo=UTC))
    assert found["receipt"] == receipt and found["title"] == "hello"
    assert found["conversation_id"] == "c1" and found["turn_id"] == "t1"
    assert await store.receipts(datetime(2026, 1, 1, 2, tzinfo=UTC)) == []


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
