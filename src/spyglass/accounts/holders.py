"""Whose conversation is whose, in the accounts store (history itself stays as it is)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence

from spyglass.accounts.model import OWNER_ID
from spyglass.accounts.runner import Execute, Runner

#: Whose a conversation is and whether it is shared (placeholders as the runners take them).
HOLDER_QUERY = "SELECT account_id, shared FROM account_conversations WHERE conversation_id = ?"


#: Whose a conversation nobody claimed is: no account's. Every conversation is claimed
#: before its first message is written, and those from before accounts existed are claimed
#: for the owner once (:meth:`ConversationHolders.adopt`); one found without a holder is a
#: write that failed half-way, and it is not given to anyone, least of all the owner.
NOBODY = ""

#: The install secret that says the conversations from before accounts have been adopted.
ADOPTED = "conversations_adopted"


def holder_from(rows: Sequence[Sequence[object]]) -> tuple[str, bool]:
    """:data:`HOLDER_QUERY`'s rows → whose conversation it is and whether they share it;
    :data:`NOBODY`'s when no one claimed it."""
    return (str(rows[0][0]), bool(rows[0][1])) if rows else (NOBODY, False)


class ConversationHolders:
    """The conversations part of :class:`~spyglass.accounts.store.AccountStore`."""

    runner: Runner
    clock: Callable[[], float]

    async def claim(self, conversation_id: str, account_id: str) -> str:
        """Record a new conversation as ``account_id``'s; returns whose it is."""

        def work(run: Execute) -> str:
            run(
                "INSERT INTO account_conversations(conversation_id, account_id) VALUES (?,?) "
                "ON CONFLICT (conversation_id) DO NOTHING",
                (conversation_id, account_id),
            )
            rows = run(
                "SELECT account_id FROM account_conversations WHERE conversation_id = ?",
                (conversation_id,),
            )
            return str(rows[0][0])

        return await self.runner.transaction(work)

    async def adopt(self, conversation_ids: Callable[[], Awaitable[list[str]]]) -> int:
        """Claim for the owner, once per install, every conversation from before accounts
        existed (``conversation_ids()``: every conversation in history); returns how many.

        Those were the owner's, the only person there was. Once adopted, a conversation
        without a holder is nobody's (:data:`NOBODY`). Claims made meanwhile stand: a claim
        never changes hands, and every new conversation is claimed before it is written."""
        done = await self.runner.statement(
            "SELECT value FROM install_secrets WHERE name = ?", (ADOPTED,)
        )
        if done:
            return 0
        found = await conversation_ids()

        def work(run: Execute) -> int:
            held = {row[0] for row in run("SELECT conversation_id FROM account_conversations", ())}
            adopted = [c for c in found if c not in held]
            for conversation_id in adopted:
                run(
                    "INSERT INTO account_conversations(conversation_id, account_id) VALUES (?,?) "
                    "ON CONFLICT (conversation_id) DO NOTHING",
                    (conversation_id, OWNER_ID),
                )
            run(
                "INSERT INTO install_secrets(name, value) VALUES (?,?) "
                "ON CONFLICT (name) DO NOTHING",
                (ADOPTED, "1"),
            )
            return len(adopted)

        return await self.runner.transaction(work)

    async def holder(self, conversation_id: str) -> tuple[str, bool]:
        """Whose conversation it is and whether they share it (:func:`holder_from`)."""
        rows = await self.runner.statement(HOLDER_QUERY, (conversation_id,))
        return holder_from(rows)

    async def conversations(self) -> dict[str, tuple[str, bool]]:
        """Every recorded conversation: its person and whether it is shared."""
        rows = await self.runner.read(
            lambda run: run(
                "SELECT conversation_id, account_id, shared FROM account_conversations", ()
            )
        )
        return {row[0]: (str(row[1]), bool(row[2])) for row in rows}

    async def share(self, conversation_id: str, shared: bool) -> None:
        await self.runner.transaction(
            lambda run: run(
                "UPDATE account_conversations SET shared = ? WHERE conversation_id = ?",
                (int(shared), conversation_id),
            )
        )

    async def hand_over(self, conversation_ids: Sequence[str], account_id: str) -> None:
        """Give conversations to another person (a removed person's history, kept)."""

        def work(run: Execute) -> None:
            for conversation_id in conversation_ids:
                run(
                    "UPDATE account_conversations SET account_id = ?, shared = 0 "
                    "WHERE conversation_id = ?",
                    (account_id, conversation_id),
                )

        await self.runner.transaction(work)

    async def forget(self, conversation_id: str) -> None:
        await self.runner.transaction(
            lambda run: run(
                "DELETE FROM account_conversations WHERE conversation_id = ?", (conversation_id,)
            )
        )
