"""What every route reaches through ``request.app.state.spyglass``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Request

from spyglass.accounts.store import AccountStore
from spyglass.conversation.turn import ConversationRunner
from spyglass.history.store import HistoryStore
from spyglass.llm.choice import ModelFinder
from spyglass.providers.clients import PROVIDER_CLIENTS
from spyglass.runtime import Runtime
from spyglass.service.auth import Authenticator, Principal
from spyglass.service.errors import ApiError
from spyglass.state.sessions import LoginCodeStore, SessionStore


@dataclass
class ServiceState:
    runtime: Runtime
    conversations: ConversationRunner
    history: HistoryStore
    auth: Authenticator
    login_codes: LoginCodeStore
    sessions: SessionStore
    accounts: AccountStore
    #: Turns of people whose role keeps no history (guests): nothing is stored.
    unrecorded: ConversationRunner | None = None
    #: Fills in the model server and model the owner left unset (None: a model was given).
    models: ModelFinder | None = None

    async def aclose(self) -> None:
        """Close what the service owns: its model client, the provider clients it keeps,
        the provenance and history stores, then the runtime's stores. Run once, at
        shutdown (or by whoever built the service without running it)."""
        await self.conversations.model.aclose()
        if self.unrecorded is not None and self.unrecorded.model is not self.conversations.model:
            await self.unrecorded.model.aclose()
        await self.runtime.seams.get(PROVIDER_CLIENTS).aclose()
        close_provenance = getattr(self.conversations.provenance, "close", None)
        if callable(close_provenance):
            close_provenance()
        await self.history.close()
        await self.runtime.stores.aclose()

    def runner(self, principal: Principal) -> ConversationRunner:
        """The conversation runner for this person's turns."""
        if not principal.account.permissions.keeps_history and self.unrecorded is not None:
            return self.unrecorded
        return self.conversations


# Both dependencies are ``async`` although they never await: FastAPI runs a plain ``def``
# dependency in its thread pool, which would cost two hand-offs to a worker thread (and
# back) on every request just to read two attributes.
async def service_state(request: Request) -> ServiceState:
    state: ServiceState = request.app.state.spyglass
    return state


async def caller(request: Request) -> Principal:
    """The authenticated person (set by the auth gate before the route runs)."""
    principal: Principal | None = getattr(request.state, "principal", None)
    if principal is None:
        raise ApiError(401, "UNAUTHORIZED", "sign in first", headers={"WWW-Authenticate": "Bearer"})
    return principal


#: A route parameter typed ``State`` receives the service state.
State = Annotated[ServiceState, Depends(service_state)]
#: A route parameter typed ``Caller`` receives the signed-in person.
Caller = Annotated[Principal, Depends(caller)]


def require_owner(principal: Principal) -> None:
    """403 unless the caller manages the household (an owner)."""
    if not principal.account.manages:
        raise ApiError(
            403,
            "OWNER_ONLY",
            "only an owner can do this; ask the owner of this Spyglass",
        )
