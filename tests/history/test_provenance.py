"""A conversation's sources live as long as its history: in its database, or in memory."""

from __future__ import annotations

from pathlib import Path

from spyglass.history.provenance import provenance_store
from spyglass.history.store import NullHistory
from spyglass.privacy.provenance import InMemoryProvenanceStore
from spyglass.state.sqlite.history import SQLiteHistory, ThreadedHistory
from spyglass.state.sqlite.provenance import SQLiteProvenanceStore


def test_without_history_sources_live_in_memory() -> None:
    assert isinstance(provenance_store(NullHistory()), InMemoryProvenanceStore)


def test_a_history_that_keeps_its_own_sources_is_asked_for_them(tmp_path: Path) -> None:
    history = SQLiteHistory(tmp_path / "h.db", retention_days=30)
    for kept in (history, ThreadedHistory(history)):
        store = provenance_store(kept)
        assert isinstance(store, SQLiteProvenanceStore) and store.path == history.path
    history.close()
