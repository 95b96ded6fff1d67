"""Provenance sources in the history database: they outlive a restart, and go with their
conversation."""

from __future__ import annotations

from pathlib import Path

from spyglass.history.provenance import SQLiteProvenanceStore, provenance_store
from spyglass.history.store import NullHistory, SQLiteHistory
from spyglass.privacy.provenance import InMemoryProvenanceStore, Source

RESULT = Source("https://zoo.example/zebra", "search", "result 1 of your search 'zebras'")
LINK = Source("https://zoo.example/okapi", "link", "a link on zoo.example/zebra", 1)


def test_sources_survive_reopening_the_database(tmp_path: Path) -> None:
    history = SQLiteHistory(tmp_path / "h.db", retention_days=30)
    history.add_user("c1", "t1", "zebras?", title="zebras?")
    store = provenance_store(history)
    assert isinstance(store, SQLiteProvenanceStore)
    store.add("c1", [RESULT, LINK])
    history.close()
    reopened = SQLiteHistory(tmp_path / "h.db", retention_days=30)
    assert SQLiteProvenanceStore(reopened.path).sources("c1") == [RESULT, LINK]
    assert SQLiteProvenanceStore(reopened.path).sources("other") == []
    reopened.close()


def test_deleting_a_conversation_deletes_its_sources(tmp_path: Path) -> None:
    history = SQLiteHistory(tmp_path / "h.db", retention_days=30)
    history.add_user("c1", "t1", "zebras?", title="zebras?")
    store = SQLiteProvenanceStore(history.path)
    store.add("c1", [RESULT])
    assert history.delete("c1")
    assert store.sources("c1") == []
    store.add("c1", [RESULT])  # the conversation is gone: nothing to attach them to
    assert store.sources("c1") == []
    history.close()


def test_without_history_sources_live_in_memory() -> None:
    assert isinstance(provenance_store(NullHistory()), InMemoryProvenanceStore)
