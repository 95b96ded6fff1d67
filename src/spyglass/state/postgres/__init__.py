"""The shared backend's durable half: history, the audit log and the policy switch in PostgreSQL.

- history: the same tables and answers as the SQLite store; full-text search covers only
  what the user and the model wrote (a generated ``tsvector`` over ``messages.text``, accents
  folded), never web text, which lives in ``events`` and ``exchanges``;
- audit: an append-only table (a trigger refuses UPDATE and DELETE); an event is written before
  the answer it records (``arecord``), or queued for a background thread while the server
  cannot be reached;
- policy: one row per switch, read fresh on every call; unreadable means off.

Versioned migrations run on start under an advisory lock (several processes may start at
once); ``spyglass db upgrade`` runs them by hand. Connection failures become
:class:`~spyglass.errors.StoreUnavailable`.
"""

from spyglass.state.postgres.audit import PostgresAudit
from spyglass.state.postgres.connection import POOL_WAIT_SECONDS, connect, unavailable
from spyglass.state.postgres.history import (
    PostgresHistory,
    PostgresProvenanceStore,
    search_query,
)
from spyglass.state.postgres.migrations import MIGRATIONS, upgrade
from spyglass.state.postgres.policy import PostgresPolicy

__all__ = [
    "MIGRATIONS",
    "POOL_WAIT_SECONDS",
    "PostgresAudit",
    "PostgresHistory",
    "PostgresPolicy",
    "PostgresProvenanceStore",
    "connect",
    "search_query",
    "unavailable",
    "upgrade",
]
