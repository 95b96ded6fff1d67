"""Where live state is kept: embedded (SQLite files) or shared (Redis and PostgreSQL).

Every store implements an interface its user already defines (``ConfirmationStore``,
``PendingTurnStore``, ``SessionStore``, ``LoginCodeStore``, ``HistoryStore``, ``AuditSink``,
``PolicySource``, the accounts store's ``Runner``);
:func:`spyglass.state.stores.open_stores` picks the backend from the ``[state]`` settings.
"""
