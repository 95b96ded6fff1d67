"""The conversation runner over the service runtime, as the service builds it."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from spyglass.conversation.turn import ConversationRunner
from spyglass.runtime import Runtime
from spyglass.state.sqlite.history import SQLiteHistory, ThreadedHistory
from tests.support.turns import running


@pytest.fixture
async def service(service_runtime: Runtime) -> AsyncIterator[ConversationRunner]:
    history = ThreadedHistory(SQLiteHistory(service_runtime.paths.database_file, retention_days=30))
    # The embedded default: paused turns in the state file, on the executor's clock.
    async with running(service_runtime, history) as runner:
        yield runner
