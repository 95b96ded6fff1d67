"""The executor's record of tokens it issued, until answered or found expired."""

from __future__ import annotations

from spyglass.core.expiry import IssuedTokens


def test_only_tokens_past_their_expiry_are_due_and_each_only_once() -> None:
    tokens = IssuedTokens(remember_seconds=120)
    tokens.issue("a", 100.0, "console")
    tokens.issue("b", 200.0, "mcp")
    assert tokens.due(150.0) == {"a": "console"}
    assert tokens.due(150.0) == {}
    assert tokens.settle("b") == "mcp" and tokens.due(300.0) == {}


def test_a_found_expired_token_is_remembered_for_a_while_then_forgotten() -> None:
    tokens = IssuedTokens(remember_seconds=120)
    tokens.expired("a", 100.0)
    assert tokens.was_expired("a") and not tokens.was_expired("b")
    tokens.due(219.0)
    assert tokens.was_expired("a")
    tokens.due(221.0)
    assert not tokens.was_expired("a")
