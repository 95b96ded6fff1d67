"""Where a conversation's URLs came from, kept as long as its history is."""

from __future__ import annotations

from collections.abc import Callable

from spyglass.history.store import HistoryStore
from spyglass.privacy.provenance import InMemoryProvenanceStore, ProvenanceStore


def provenance_store(history: HistoryStore) -> ProvenanceStore:
    """The store that lives as long as ``history`` does: in its database, or in memory.

    A history that offers its own (``provenance()``: the embedded SQLite file, PostgreSQL for
    the shared backend) keeps them in its database; with history off they last as long as the
    process.
    """
    own: Callable[[], ProvenanceStore] | None = getattr(history, "provenance", None)
    if callable(own):
        return own()
    return InMemoryProvenanceStore()
