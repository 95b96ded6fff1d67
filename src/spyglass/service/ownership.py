"""Whose conversation is whose: every route that names a conversation asks here.

A conversation is its person's. Another person's answer is the one an unknown id gets
(``404``, or the unknown-confirmation answer), so ids guessed, swapped or replayed tell
nothing about what exists. The owner sees others' conversations only when they are shared.
"""

from __future__ import annotations

from spyglass.accounts.roles import Role
from spyglass.service.auth import Principal
from spyglass.service.state import ServiceState

#: A conversation id no conversation has: resuming it answers as any unknown token does.
UNKNOWN_CONVERSATION = "-"


async def owns(state: ServiceState, principal: Principal, conversation_id: str) -> bool:
    """Whether ``principal`` may continue, read or delete the conversation."""
    holder, _ = await state.accounts.holder(conversation_id)
    return holder == principal.account.id


async def may_read(state: ServiceState, principal: Principal, conversation_id: str) -> bool:
    """Whether ``principal`` may read it: their own, or one shared with the owners."""
    holder, shared = await state.accounts.holder(conversation_id)
    if holder == principal.account.id:
        return True
    return shared and principal.account.role is Role.OWNER and principal.account.manages
