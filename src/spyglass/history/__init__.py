"""Conversation history: SQLite with full-text search over what the user and model wrote."""
