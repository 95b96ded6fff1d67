"""The embedded backend: SQLite files under ``SPYGLASS_HOME``, no server.

- :mod:`~spyglass.state.sqlite.statefile`: tokens, paused turns, sessions and login codes in
  the state file (``state.db``);
- :mod:`~spyglass.state.sqlite.accounts`: the household's accounts, in the same file;
- :mod:`~spyglass.state.sqlite.history` and :mod:`~spyglass.state.sqlite.provenance`:
  conversations and where their URLs came from (``spyglass.db``);
- :mod:`~spyglass.state.sqlite.migrations`: both files' schemas, each table defined once.
"""
