"""Who an MCP request is made for, asked afresh for every request.

A server started with a person's API token (``spyglass mcp --token-file``) looks the token up
again on every request, so what the owner changed since it started applies to the next call:
a person made a child or "needs approval" waits for an approver, and a token replaced by a new
one (the documented revocation), a disabled or a removed person signs nobody in any more. Over
Streamable HTTP the credential comes with every request and was checked before it got here.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from spyglass.core.actor import Actor

if TYPE_CHECKING:
    from mcp.server.context import ServerRequestContext

    from spyglass.accounts.people import Actors
    from spyglass.accounts.store import AccountStore

#: How the owner gives a person a working token again.
NEW_TOKEN = "the owner makes a new one with `spyglass users api-token NAME`"  # noqa: S105


@dataclass(frozen=True)
class SignedOut:
    """The credential this request was made with signs nobody in (any more)."""

    message: str


#: Who a request is made for: a person, the owner on this machine (``None``), or nobody.
Caller = Actor | None | SignedOut

#: The seam: the caller of the request behind a handler's context.
Callers = Callable[["ServerRequestContext[Any, Any]"], Awaitable[Caller]]


async def local_owner(ctx: ServerRequestContext[Any, Any]) -> Caller:
    """Every request is the owner's: a server launched by the owner with no token."""
    return None


class TokenHolder:
    """The person a stored API token signs in, looked up by its digest on every request."""

    def __init__(self, accounts: AccountStore, actors: Actors, token: str, source: str) -> None:
        self.accounts = accounts
        self.actors = actors
        self.token = token
        #: Where the token came from, to name in a refusal (the token file).
        self.source = source

    async def __call__(self, ctx: ServerRequestContext[Any, Any] | None = None) -> Caller:
        from spyglass.accounts.store import API_TOKEN

        account = await self.accounts.resolve(API_TOKEN, self.token) if self.token else None
        if account is None or account.disabled:
            return SignedOut(
                f"the API token in {self.source} no longer signs anyone in (it was replaced "
                f"by a new one, or its person was disabled or removed); {NEW_TOKEN}, and "
                "restart this server with it"
            )
        return await self.actors.actor(account)


async def from_request(ctx: ServerRequestContext[Any, Any]) -> Caller:
    """The person whose credential the HTTP request carrying this message was sent with, as
    the gate in front of ``/mcp`` found it (:class:`spyglass.service.auth.AuthGate`)."""
    state = getattr(ctx.request, "state", None)
    actor = getattr(getattr(state, "principal", None), "actor", None)
    if isinstance(actor, Actor):
        return actor
    return SignedOut("this request carries no credential that signs anyone in")
