"""The conversation runner over the service runtime, as the service builds it."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from spyglass.conversation.turn import ConversationRunner
from spyglass.history.store import SQLiteHistory, ThreadedHistory
from spyglass.llm.client import ModelClient
from spyglass.runtime import Runtime


@pytest.fixture
async def service(service_runtime: Runtime) -> AsyncIterator[ConversationRunner]:
    history = ThreadedHistory(SQLiteHistory(service_runtime.paths.database_file, retention_days=30))
    model = ModelClient(service_runtime.settings.llm)
    # The embedded default: paused turns in the state file, on the executor's clock.
    yield ConversationRunner(service_runtime, model, history, service_runtime.stores.pending)
    await model.aclose()
    await history.close()
    await service_runtime.stores.aclose()
