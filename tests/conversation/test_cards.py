"""The cards of a paused round: their tokens sealed under the token the turn is kept by, so
that a stored turn holds no raw token, yet whoever answers the first card can be shown the
others."""

from __future__ import annotations

from spyglass.conversation.cards import seal, unseal
from spyglass.conversation.pending import TurnState
from spyglass.conversation.stored import state_from_json, state_to_json
from spyglass.core.confirmation import new_token, token_digest
from spyglass.core.context import Turn
from tests.conversation.test_pending import waiting_for


def test_a_sealed_token_comes_back_only_with_the_key_it_was_sealed_under() -> None:
    key, token = new_token(), new_token()
    digest = token_digest(token)
    sealed = seal(key, token, digest)
    assert token not in sealed and key not in sealed
    assert unseal(key, sealed, digest) == token
    assert unseal(new_token(), sealed, digest) is None
    assert unseal(key, "not hex", digest) is None
    # The key's own card needs nothing sealed: presenting the key is presenting its token.
    assert unseal(key, "", token_digest(key)) == key


def test_two_cards_sealed_under_one_key_get_different_pads() -> None:
    key = new_token()
    first, second = "A" * 32, "A" * 32 + "B"
    a = seal(key, first, token_digest(first))
    b = seal(key, second, token_digest(second))
    assert a != b[: len(a)]


def test_a_stored_turn_holds_no_card_s_raw_token_and_only_its_key_unseals_them() -> None:
    state = TurnState("c1", "t", [], Turn("c1"))
    waiting_for(state, "first-token-abc", "second-token-xyz", "third-token-123")
    state.claim = "first-token-abc"
    stored = state_to_json(state, "first-token-abc")
    for token in ("first-token-abc", "second-token-xyz", "third-token-123"):
        assert token not in stored
    assert state_from_json(stored, "first-token-abc").tokens == state.tokens
    # Another token (a guess, another card's) unseals nothing but its own card.
    assert state_from_json(stored, "second-token-xyz").tokens == {
        token_digest("second-token-xyz"): "second-token-xyz"
    }
    assert state_from_json(stored, "guessed").tokens == {}
