"""The cards a paused round waits for: issued together, answered one by one or all at once.

When the model proposes several calls in one round, every call that needs asking gets its
own card (and token) and they come back together; the turn is kept once, under the first
still-waiting card's token. The other cards' tokens must survive a pause and a crash (an
existing client that answers only the first is shown the next), yet a store that outlives
the process keeps no raw token: each is kept *sealed* under the token the turn is kept (or
claimed) by, which only whoever answers that card presents. A copy of the state file or of
Redis then holds nothing that approves a call.
"""

from __future__ import annotations

import hashlib
import hmac
from typing import Any

from spyglass.conversation.pending import TurnState, WaitingCard
from spyglass.core.confirmation import token_digest
from spyglass.core.outcome import Outcome

_LABEL = b"spyglass sealed card "


def _pad(key: str, digest: str, size: int) -> bytes:
    """A pad of ``size`` bytes for the card ``digest`` names, only ``key``'s holder can make."""
    secret = key.encode("utf-8", "surrogatepass")
    pad = b""
    counter = 0
    while len(pad) < size:
        message = _LABEL + digest.encode() + counter.to_bytes(4, "big")
        pad += hmac.new(secret, message, hashlib.sha256).digest()
        counter += 1
    return pad[:size]


def seal(key: str, token: str, digest: str) -> str:
    """``token`` sealed under ``key`` (hex): one pad per card, so no two share one."""
    raw = token.encode("utf-8", "surrogatepass")
    pad = _pad(key, digest, len(raw))
    return bytes(a ^ b for a, b in zip(raw, pad, strict=True)).hex()


def unseal(key: str, sealed: str, digest: str) -> str | None:
    """The token ``sealed`` holds, if ``key`` sealed it and it is the one ``digest`` names."""
    if token_digest(key) == digest:
        return key
    try:
        raw = bytes.fromhex(sealed)
        pad = _pad(key, digest, len(raw))
        token = bytes(a ^ b for a, b in zip(raw, pad, strict=True)).decode("utf-8")
    except ValueError:
        return None
    return token if hmac.compare_digest(token_digest(token), digest) else None


def wait(state: TurnState, call_arguments: Any, outcome: Outcome, expires_at: float) -> None:
    """Record in ``state`` that the next call of the round waits for the card ``outcome``
    asks for (its event shown now, replaced by its outcome's once answered)."""
    from spyglass.conversation.events import tool_event

    pending = outcome.pending_confirmation
    assert pending is not None
    card = pending.to_dict()
    token = card.pop("token")
    digest = token_digest(token)
    state.tokens[digest] = token
    state.waiting.append(WaitingCard(len(state.events), digest, card, expires_at))
    state.events.append(tool_event(outcome, call_arguments))


def find(state: TurnState, token: str) -> int | None:
    """Where the card ``token`` answers is in ``state.waiting``, if it still waits."""
    digest = token_digest(token)
    return next((i for i, c in enumerate(state.waiting) if c.digest == digest), None)


def token_of(state: TurnState, card: WaitingCard) -> str | None:
    """The card's token, where this process knows it (``None``: it was lost with a crash)."""
    return state.tokens.get(card.digest)


def shown(state: TurnState, now: float) -> list[dict[str, Any]]:
    """The still-waiting cards as the person is shown them (each with its token), in order."""
    cards = []
    for card in state.waiting:
        token = token_of(state, card)
        if token is None:
            continue
        left = max(0, round(card.expires_at - now))
        cards.append({"token": token, **card.card, "expires_in_seconds": left})
    return cards
