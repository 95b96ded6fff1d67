"""What every route reaches through ``request.app.state.spyglass``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Request

from spyglass.conversation.turn import ConversationRunner
from spyglass.history.store import HistoryStore
from spyglass.runtime import Runtime
from spyglass.service.auth import Authenticator
from spyglass.state.sessions import LoginCodeStore, SessionStore


@dataclass
class ServiceState:
    runtime: Runtime
    conversations: ConversationRunner
    history: HistoryStore
    auth: Authenticator
    login_codes: LoginCodeStore
    sessions: SessionStore


def service_state(request: Request) -> ServiceState:
    state: ServiceState = request.app.state.spyglass
    return state


#: A route parameter typed ``State`` receives the service state.
State = Annotated[ServiceState, Depends(service_state)]
