"""Where conversations are kept: the interface the service uses, and nowhere when off.

:class:`HistoryStore` is the async interface; the stores themselves are adapters in
:mod:`spyglass.state` (SQLite for the embedded backend, PostgreSQL for the shared one), and
keep messages as the helpers here spell them.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any, Protocol


def utc_now() -> datetime:
    return datetime.now(UTC)


def stamp(moment: datetime) -> str:
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def assistant_values(
    text: str,
    reasoning: str,
    events: list[dict[str, Any]],
    citations: list[dict[str, Any]],
    exchanges: list[dict[str, Any]],
    receipt: dict[str, Any] | None,
) -> tuple[str, str, str, str, str, str | None]:
    """An assistant message's columns as every history store keeps them (JSON as text)."""
    return (
        text,
        reasoning,
        json.dumps(events, ensure_ascii=False),
        json.dumps(citations, ensure_ascii=False),
        json.dumps(exchanges, ensure_ascii=False),
        None if receipt is None else json.dumps(receipt, ensure_ascii=False),
    )


class HistoryStore(Protocol):
    """Where the service keeps conversations. Coroutines: no store blocks the event loop."""

    enabled: bool

    async def exists(self, conversation_id: str) -> bool: ...
    async def add_user(
        self, conversation_id: str, turn_id: str, text: str, *, title: str
    ) -> None: ...
    async def save_assistant(
        self,
        conversation_id: str,
        turn_id: str,
        *,
        text: str,
        reasoning: str,
        events: list[dict[str, Any]],
        citations: list[dict[str, Any]],
        exchanges: list[dict[str, Any]],
        receipt: dict[str, Any] | None = None,
    ) -> None: ...
    async def receipts(self, since: datetime) -> list[dict[str, Any]]:
        """Receipts of answers given since ``since``, oldest first, with their conversation."""
        ...

    async def messages(self, conversation_id: str) -> list[dict[str, Any]]: ...
    async def conversations(self, query: str | None = None) -> list[dict[str, Any]]: ...
    async def conversation(self, conversation_id: str) -> dict[str, Any] | None: ...
    async def delete(self, conversation_id: str) -> bool: ...
    async def prune(self) -> int: ...
    async def close(self) -> None: ...


class NullHistory:
    """``history.enabled = false``: nothing is stored, nothing is found."""

    enabled = False

    async def exists(self, conversation_id: str) -> bool:
        return False

    async def add_user(self, conversation_id: str, turn_id: str, text: str, *, title: str) -> None:
        return None

    async def save_assistant(self, conversation_id: str, turn_id: str, **_: Any) -> None:
        return None

    async def messages(self, conversation_id: str) -> list[dict[str, Any]]:
        return []

    async def receipts(self, since: datetime) -> list[dict[str, Any]]:
        return []

    async def conversations(self, query: str | None = None) -> list[dict[str, Any]]:
        return []

    async def conversation(self, conversation_id: str) -> dict[str, Any] | None:
        return None

    async def delete(self, conversation_id: str) -> bool:
        return False

    async def prune(self) -> int:
        return 0

    async def close(self) -> None:
        return None


def public_message(message: dict[str, Any]) -> dict[str, Any]:
    """A message as the API shows it: no raw tool exchanges."""
    data = {"role": message["role"], "text": message["text"]}
    if message["reasoning"]:
        data["reasoning"] = message["reasoning"]
    data["events"] = message["events"]
    data["citations"] = message["citations"]
    if message.get("receipt") is not None:
        data["receipt"] = message["receipt"]
    data["created_at"] = message["created_at"]
    return data
